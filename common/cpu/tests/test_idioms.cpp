// Self-tests of correct kernels in public CUDA idioms (kernels_idioms.cu), in both modes: the right result, and no
// diagnostic in check mode.
#include "kernels_idioms.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace {

std::vector<float> fractions(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.326f + 0.125f * static_cast<float>((i * 7) % 11);
  return v;
}

}  // namespace

TEST(Idioms, TernaryOfASharedElementAndAnIntegerIsAFloat) {
  const auto in = fractions(32);
  DeviceBuffer<float> din(in), dout(1);
  ASSERT_EQ(run_ternary_warp_sum(din.ptr, dout.ptr, 20), cudaSuccess);
  const double expected = std::accumulate(in.begin(), in.begin() + 20, 0.0);
  EXPECT_NEAR(dout.get()[0], expected, 1e-4);  // with the conditional an int, each value would lose its fraction
  expect_no_diagnostics();
}

TEST(Idioms, ReferencesToSharedElements) {
  std::vector<float> in(64);
  for (int i = 0; i < 64; ++i) in[i] = static_cast<float>((i * 37) % 64) - 20.5f;
  DeviceBuffer<float> din(in), dout(64);
  ASSERT_EQ(run_reference_sort(din.ptr, dout.ptr), cudaSuccess);
  std::sort(in.begin(), in.end());
  EXPECT_EQ(dout.get(), in);
  expect_no_diagnostics();
}

TEST(Idioms, VolatileWarpReductionWithSyncwarp) {
  const int blocks = 3;
  const auto in = fractions(64 * blocks);
  DeviceBuffer<float> din(in), dout(blocks);
  ASSERT_EQ(run_volatile_warp_reduce(din.ptr, dout.ptr, blocks), cudaSuccess);
  const auto out = dout.get();
  for (int b = 0; b < blocks; ++b)
    EXPECT_NEAR(out[b], std::accumulate(in.begin() + 64 * b, in.begin() + 64 * (b + 1), 0.0), 1e-4) << "block " << b;
  expect_no_diagnostics();
}

TEST(Idioms, VolatileSharedArray) {
  DeviceBuffer<int> out(32);
  ASSERT_EQ(run_volatile_flags(out.ptr), cudaSuccess);
  const auto o = out.get();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(o[t], (31 - t) * 3 + 1);
  expect_no_diagnostics();
}

TEST(Idioms, CooperativeGroupsBlockSum) {
  for (int block : {64, 256, 1024}) {
    const int n = 5000;
    const auto in = fractions(n);
    DeviceBuffer<float> din(in), dout(1);
    ASSERT_EQ(run_cg_block_sum(din.ptr, dout.ptr, n, block), cudaSuccess);
    EXPECT_NEAR(dout.get()[0], std::accumulate(in.begin(), in.end(), 0.0), 1e-2) << "block " << block;
    expect_no_diagnostics();
  }
}

TEST(Idioms, CooperativeGroupsTileVotesRanksAndPartitions) {
  DeviceBuffer<int> dout(64 * 6);
  ASSERT_EQ(run_cg_tile_votes(dout.ptr), cudaSuccess);
  const auto out = dout.get();
  for (int t = 0; t < 64; ++t) {
    const int* o = &out[6 * t];
    EXPECT_EQ(o[0], 0xaa) << t;                // ranks 1, 3, 5, 7 of the tile
    EXPECT_EQ(o[1], t / 8 == 1 ? 1 : 0) << t;  // thread 13 is in the second tile
    EXPECT_EQ(o[2], t < 40 ? 1 : 0) << t;      // tiles 0..4 lie below thread 40
    EXPECT_EQ(o[3], t % 4 + 40) << t;          // rank and size of the 4-thread partition
    EXPECT_EQ(o[4], t / 8 + 800) << t;         // meta_group_rank and meta_group_size
    EXPECT_EQ(o[5], t / 8 * 8) << t;           // reduce with less<int>: the tile's smallest rank
  }
  expect_no_diagnostics();
}

TEST(Idioms, Float4StoresThroughCastPointersInitializeSharedMemory) {
  const auto in = fractions(128);
  for (int which : {0, 1, 2}) {
    DeviceBuffer<float> din(in), dout(128);
    ASSERT_EQ(run_float4_shared(din.ptr, dout.ptr, which), cudaSuccess);
    EXPECT_EQ(dout.get(), in) << "form " << which;
    expect_no_diagnostics();
  }
}

TEST(Idioms, ShuffleFromALaneOutsideTheMaskIsUndefined) {
  DeviceBuffer<float> dout(32);
  ASSERT_EQ(run_undefined_shuffle(dout.ptr), cudaSuccess);
  const auto out = dout.get();
  for (int lane = 0; lane < 8; ++lane) EXPECT_EQ(out[lane], lane + 8);
  for (int lane = 8; lane < 16; ++lane) EXPECT_TRUE(std::isnan(out[lane])) << lane;  // read lanes 16..23
  for (int lane = 16; lane < 32; ++lane) EXPECT_EQ(out[lane], lane);
  expect_no_diagnostics();
}

TEST(Idioms, StructsInSharedMemoryAndSharedAtomics) {
  const int n = 1000;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>((i * 389) % 997) * 0.5f;
  DeviceBuffer<float> din(in), best(1);
  DeviceBuffer<int> index(1), histogram(8);
  ASSERT_EQ(run_struct_and_atomics(din.ptr, n, best.ptr, index.ptr, histogram.ptr), cudaSuccess);
  const auto top = std::max_element(in.begin(), in.end());
  EXPECT_EQ(best.get()[0], *top);
  EXPECT_EQ(index.get()[0], top - in.begin());
  std::vector<int> expected(8, 0);
  for (float v : in) ++expected[static_cast<int>(v) & 7];
  EXPECT_EQ(histogram.get(), expected);
  expect_no_diagnostics();
}

TEST(Idioms, AtomicsOnSharedScalarsOfAnyType) {
  std::vector<float> in(64);
  float sum = 0.0f;
  for (int i = 0; i < 64; ++i) sum += in[i] = static_cast<float>(i % 5);  // small integers: any order sums exactly
  DeviceBuffer<float> din(in), out(68);
  ASSERT_EQ(run_scalar_atomics(din.ptr, out.ptr), cudaSuccess);
  const auto got = out.get();
  for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], 2.0f * static_cast<float>(63 - t)) << t;
  EXPECT_EQ(got[64], sum);
  EXPECT_EQ(got[65], 64.0f);
  EXPECT_EQ(got[66], sum);
  EXPECT_EQ(got[67], 2016.0f);
  expect_no_diagnostics();
}

// The CUDA Programming Guide's atomicCAS loop (a plain read for the first guess, then compare-and-swap) on __shared__
// words, by 4 warps: the max and the sum a GPU computes, and no race between the plain reads and the swaps.
TEST(Idioms, CompareAndSwapLoopsOnSharedWords) {
  std::vector<float> in(128);
  double sum = 0.0;
  for (int i = 0; i < 128; ++i) sum += in[i] = static_cast<float>((i * 37) % 101) * 0.5f;
  DeviceBuffer<float> din(in), out(2);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_cas_loops(din.ptr, out.ptr, 128, true), cudaSuccess);
  const auto got = out.get();
  EXPECT_EQ(got[0], *std::max_element(in.begin(), in.end()));
  EXPECT_EQ(got[1], static_cast<float>(sum));  // halves of integers: any order sums exactly
  expect_no_diagnostics();
}

TEST(Idioms, LaunchSizedByTheOccupancyApi) {
  const int n = 100000;
  const auto in = fractions(n);
  DeviceBuffer<float> din(in), dout(n);
  int grid = 0, block = 0, sms = 0;
  ASSERT_EQ(run_occupancy_sized(din.ptr, dout.ptr, n, &grid, &block), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  EXPECT_EQ(block, 1024);    // no shared memory: 1024 threads reach the SM's 2048 with 2 blocks
  EXPECT_EQ(grid, 2 * sms);  // one wave: 2 blocks per SM
  const auto out = dout.get();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * in[i]) << i;
  expect_no_diagnostics();
}

// The occupancy model (src/occupancy.cpp): one sm_90 SM holds 2048 threads, 32 blocks and 228 KiB of shared memory;
// a block holds its static and dynamic shared memory plus 1 KiB, in units of 128 bytes.
namespace {
int model_blocks(int block, std::size_t shared) {
  const int by_threads = 2048 / (((block + 31) / 32) * 32);
  const std::size_t per_block = (shared + 1024 + 127) / 128 * 128;
  return std::min({by_threads, 32, static_cast<int>(228 * 1024 / per_block)});
}
}  // namespace

TEST(Occupancy, StaticSharedMemoryOfEachKernelIsMeasured) {
  cudaFuncAttributes a{};
  ASSERT_EQ(attributes_of(0, &a), cudaSuccess);
  EXPECT_EQ(a.sharedSizeBytes, 2 * 16 * 16 * sizeof(float) + sizeof(int));
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, static_cast<int>(48 * 1024 - a.sharedSizeBytes));
  ASSERT_EQ(attributes_of(1, &a), cudaSuccess);  // another specialization of the same template
  EXPECT_EQ(a.sharedSizeBytes, 2 * 32 * 32 * sizeof(double) + sizeof(int));
  ASSERT_EQ(attributes_of(2, &a), cudaSuccess);
  EXPECT_EQ(a.sharedSizeBytes, 1000 * sizeof(float));
  ASSERT_EQ(attributes_of(3, &a), cudaSuccess);
  EXPECT_EQ(a.sharedSizeBytes, 0u);
  EXPECT_EQ(a.maxThreadsPerBlock, 1024);
  EXPECT_EQ(a.numRegs, 32);  // the model's assumption
}

TEST(Occupancy, BlocksPerSmFollowTheModel) {
  int blocks = -1;
  for (int block : {32, 64, 100, 256, 512, 1024}) {
    ASSERT_EQ(blocks_per_sm(3, block, 0, &blocks), cudaSuccess);
    EXPECT_EQ(blocks, model_blocks(block, 0)) << block;
  }
  EXPECT_EQ(model_blocks(32, 0), 32);  // the block limit
  ASSERT_EQ(blocks_per_sm(0, 256, 0, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, model_blocks(256, 2052));  // the static arrays count
  ASSERT_EQ(blocks_per_sm(2, 64, 40000, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, model_blocks(64, 44000));  // 5: shared memory limits
  EXPECT_EQ(blocks, 5);
  ASSERT_EQ(blocks_per_sm(3, 128, 60000, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, 0);  // more dynamic shared memory than the kernel may launch with (48 KiB)
  ASSERT_EQ(blocks_per_sm(3, 2048, 0, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, 0);  // more threads than a block may have
  EXPECT_EQ(blocks_per_sm(3, 0, 0, &blocks), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(Occupancy, AttributesSetOnAKernelChangeItsOccupancy) {
  const std::size_t static_bytes = 2048 * sizeof(float);
  int blocks = -1;
  ASSERT_EQ(probe_blocks(128, 60000, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, 0);  // 60000 > 48 KiB - 8 KiB may not launch without opting in
  ASSERT_EQ(probe_attribute(cudaFuncAttributeMaxDynamicSharedMemorySize, 100000), cudaSuccess);
  cudaFuncAttributes a{};
  ASSERT_EQ(probe_attributes(&a), cudaSuccess);
  EXPECT_EQ(a.sharedSizeBytes, static_bytes);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 100000);
  ASSERT_EQ(probe_blocks(128, 60000, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, model_blocks(128, static_bytes + 60000));  // 3
  EXPECT_EQ(blocks, 3);
  EXPECT_EQ(probe_attribute(cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024), cudaErrorInvalidValue);
  cudaGetLastError();  // with the static 8 KiB, more than 227 KiB per block

  // The carveout picks the smallest sm_90 configuration holding that share of 228 KiB (and one block).
  ASSERT_EQ(probe_blocks(64, 0, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, model_blocks(64, static_bytes));  // default: all 228 KiB -> 25 blocks of 9 KiB
  ASSERT_EQ(probe_attribute(cudaFuncAttributePreferredSharedMemoryCarveout, 25), cudaSuccess);
  ASSERT_EQ(probe_blocks(64, 0, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, 64 / 9);  // 25 % of 228 KiB = 57 KiB: the 64 KiB configuration holds 7 blocks of 9 KiB
  ASSERT_EQ(probe_attribute(cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1), cudaSuccess);
  ASSERT_EQ(probe_blocks(64, 0, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, 1);  // 0 KiB preferred: the smallest configuration that holds one block (16 KiB)
  ASSERT_EQ(probe_attribute(cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
            cudaSuccess);
  ASSERT_EQ(probe_blocks(64, 0, &blocks), cudaSuccess);
  EXPECT_EQ(blocks, model_blocks(64, static_bytes));
  ASSERT_EQ(probe_attributes(&a), cudaSuccess);
  EXPECT_EQ(a.preferredShmemCarveout, 100);
}

TEST(Occupancy, DeviceAttributesOfTheModel) {
  int v = -1;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, 0), cudaSuccess);
  EXPECT_EQ(v, 1024);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0), cudaSuccess);
  EXPECT_EQ(v, 228 * 1024);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
  EXPECT_EQ(v, 227 * 1024);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxBlocksPerMultiprocessor, 0), cudaSuccess);
  EXPECT_EQ(v, 32);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, 0), cudaSuccess);
  EXPECT_EQ(v, 0);  // no grid-wide barrier on the CPU
  cudaDeviceProp p{};
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_EQ(p.reservedSharedMemPerBlock, 1024u);
  EXPECT_EQ(p.regsPerMultiprocessor, 65536);
}
