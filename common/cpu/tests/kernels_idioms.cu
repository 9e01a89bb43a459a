// Self-test kernels of the CPU backend: correct kernels in idioms of public CUDA code that check mode used to reject
// or misjudge (issue 12). Compiled through course-rewrite in fast and in check mode; each must give the right result
// with no diagnostic in both.
#include "kernels_idioms.h"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// A conditional mixing an integer literal and a shared element: its type is float, as on the GPU.
__global__ void ternaryWarpSum(const float* in, float* out, int n) {
  __shared__ float sdata[32];
  const int lane = threadIdx.x;
  sdata[lane] = lane < n ? in[lane] : 1e9f;  // lanes >= n must not be read below
  __syncthreads();
  float val = (lane < n) ? sdata[lane] : 0;  // @ternary
  for (int offset = 16; offset > 0; offset /= 2) val += __shfl_down_sync(0xffffffffu, val, offset);
  if (lane == 0) out[0] = val;
}
cudaError_t run_ternary_warp_sum(const float* in, float* out, int n) {
  ternaryWarpSum<<<1, 32>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// References to shared elements: a local one, and a __device__ swap(float&, float&) (odd-even transposition sort).
__device__ void swap_values(float& a, float& b) {
  const float t = a;
  a = b;
  b = t;
}
__global__ void referenceSort(const float* in, float* out) {
  __shared__ float s[64];
  const int t = threadIdx.x;  // 32 threads, two elements each
  float& mine = s[2 * t];
  mine = in[2 * t];
  s[2 * t + 1] = in[2 * t + 1];
  __syncthreads();
  for (int phase = 0; phase < 64; ++phase) {
    const int i = 2 * t + (phase & 1);
    if (i + 1 < 64 && s[i] > s[i + 1]) swap_values(s[i], s[i + 1]);
    __syncthreads();
  }
  const float& first = s[2 * t];
  out[2 * t] = first;
  out[2 * t + 1] = s[2 * t + 1];
}
cudaError_t run_reference_sort(const float* in, float* out) {
  referenceSort<<<1, 32>>>(in, out);
  return cudaDeviceSynchronize();
}

// The pre-Volta warp-synchronous tail, made safe for independent thread scheduling: each step reads, then
// __syncwarp(), then writes (NVIDIA's "Using CUDA Warp-Level Primitives"), through a volatile pointer parameter.
__device__ void warpReduce(volatile float* sdata, unsigned tid) {
  float v = sdata[tid];
  for (int offset = 32; offset > 0; offset /= 2) {
    v += sdata[tid + offset];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
  }
}
__global__ void volatileWarpReduce(const float* in, float* out) {
  __shared__ float sdata[64];
  const unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 64 + tid];
  __syncthreads();
  if (tid < 32) warpReduce(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
cudaError_t run_volatile_warp_reduce(const float* in, float* out, int blocks) {
  volatileWarpReduce<<<blocks, 64>>>(in, out);
  return cudaDeviceSynchronize();
}

// A volatile shared array.
__global__ void volatileFlags(int* out) {
  __shared__ volatile int flags[32];
  flags[threadIdx.x] = static_cast<int>(threadIdx.x) * 3;
  __syncthreads();
  out[threadIdx.x] = flags[31 - threadIdx.x] + 1;
}
cudaError_t run_volatile_flags(int* out) {
  volatileFlags<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Cooperative groups: a grid-stride sum, cg::reduce over warp tiles, one value per tile in shared memory.
__global__ void cgBlockSum(const float* in, float* out, int n) {
  extern __shared__ float tile_sums[];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = 0.0f;
  for (unsigned i = block.group_index().x * block.size() + block.thread_rank(); i < static_cast<unsigned>(n);
       i += gridDim.x * block.size())
    v += in[i];
  v = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = v;
  cg::sync(block);
  if (tile.meta_group_rank() == 0) {
    v = tile.thread_rank() < tile.meta_group_size() ? tile_sums[tile.thread_rank()] : 0.0f;
    auto half = cg::tiled_partition<16>(tile);
    for (unsigned offset = half.size() / 2; offset > 0; offset /= 2) v += half.shfl_down(v, offset);
    v += tile.shfl(v, 16);  // lane 0 adds the second half's sum
    if (block.thread_rank() == 0) atomicAdd(out, v);
  }
}
cudaError_t run_cg_block_sum(const float* in, float* out, int n, int block) {
  cgBlockSum<<<3, block, (block / 32) * sizeof(float)>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// Tile votes, ranks and the dynamic partition: out[6 * t + k].
__global__ void cgTileVotes(int* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile8 = cg::tiled_partition<8>(block);
  const unsigned t = block.thread_rank();
  const unsigned ballot = tile8.ballot(tile8.thread_rank() % 2 == 1);
  const int any = tile8.any(t == 13);
  const int all = tile8.all(t < 40);
  cg::thread_group four = cg::tiled_partition(block, 4);
  four.sync();
  const int minimum = cg::reduce(tile8, static_cast<int>(t), cg::less<int>());
  out[6 * t + 0] = static_cast<int>(ballot);
  out[6 * t + 1] = any;
  out[6 * t + 2] = all;
  out[6 * t + 3] = static_cast<int>(four.thread_rank() + 10 * four.size());
  out[6 * t + 4] = static_cast<int>(tile8.meta_group_rank() + 100 * tile8.meta_group_size());
  out[6 * t + 5] = minimum;
}
cudaError_t run_cg_tile_votes(int* out) {
  cgTileVotes<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// float4 stores into shared memory through a cast pointer, then float reads: no "uninitialized" read.
#define FETCH_FLOAT4(x) (reinterpret_cast<float4*>(&(x))[0])
__global__ void float4Shared(const float* in, float* out, int which) {
  __shared__ __align__(16) float tile[128];
  const int t = threadIdx.x;  // 32 threads, one float4 each
  const float4 v = reinterpret_cast<const float4*>(in)[t];
  if (which == 0) {
    reinterpret_cast<float4*>(tile)[t] = v;
  } else if (which == 1) {
    float4* tile4 = reinterpret_cast<float4*>(&tile[0]);
    tile4[t] = v;
  } else {
    FETCH_FLOAT4(tile[4 * t]) = v;
  }
  __syncthreads();
  for (int k = 0; k < 4; ++k) out[t + 32 * k] = tile[t + 32 * k];
}
cudaError_t run_float4_shared(const float* in, float* out, int which) {
  float4Shared<<<1, 32>>>(in, out, which);
  return cudaDeviceSynchronize();
}

// A shuffle reading a lane outside its mask: lanes 8..15 read lanes 16..23, which are not in 0x0000ffff.
__global__ void undefinedShuffle(float* out) {
  const int lane = threadIdx.x;
  float v = static_cast<float>(lane);
  if (lane < 16) v = __shfl_down_sync(0x0000ffffu, v, 8);
  out[lane] = v;
}
cudaError_t run_undefined_shuffle(float* out) {
  undefinedShuffle<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// A struct in shared memory (argmax) and shared-memory atomics (a histogram).
struct Best {
  float value;
  int index;
};
__global__ void structAndAtomics(const float* in, int n, float* best_value, int* best_index, int* histogram) {
  __shared__ Best best[64];
  __shared__ int hist[8];
  const int t = threadIdx.x;
  if (t < 8) hist[t] = 0;
  Best mine{-1e30f, -1};
  for (int i = t; i < n; i += 64)
    if (in[i] > mine.value) mine = Best{in[i], i};
  best[t] = mine;
  __syncthreads();
  for (int i = t; i < n; i += 64) atomicAdd(&hist[static_cast<int>(in[i]) & 7], 1);
  for (int s = 32; s > 0; s /= 2) {
    if (t < s && best[t + s].value > best[t].value) best[t] = best[t + s];
    __syncthreads();
  }
  if (t == 0) {
    *best_value = best[0].value;
    *best_index = best[0].index;
  }
  if (t < 8) histogram[t] = hist[t];
}
cudaError_t run_struct_and_atomics(const float* in, int n, float* best, int* best_index, int* histogram) {
  structAndAtomics<<<1, 64>>>(in, n, best, best_index, histogram);
  return cudaDeviceSynchronize();
}

// A launch sized by the occupancy API: one wave of the largest block with the most resident threads.
__global__ void scaleGridStride(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2.0f * in[i];
}
cudaError_t run_occupancy_sized(const float* in, float* out, int n, int* grid, int* block) {
  int min_grid = 0, per_sm = 0, sms = 0;
  cudaError_t e = cudaOccupancyMaxPotentialBlockSize(&min_grid, block, scaleGridStride, 0, 0);
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scaleGridStride, *block, 0);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (e != cudaSuccess) return e;
  const int needed = (n + *block - 1) / *block;
  *grid = needed < per_sm * sms ? needed : per_sm * sms;
  scaleGridStride<<<*grid, *block>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// Kernels whose static shared memory the occupancy tests know: 2 * 16 * 16 floats + one int; 1000 floats.
template <typename T, int TILE>
__global__ void tiledStatic(const T* a, T* out) {
  __shared__ T As[TILE][TILE], Bs[TILE][TILE];
  __shared__ int count;
  As[threadIdx.y][threadIdx.x] = a[0];
  Bs[threadIdx.y][threadIdx.x] = a[1];
  count = 1;
  __syncthreads();
  out[0] = As[0][0] + Bs[0][0] + static_cast<T>(count);
}
__global__ void bigStatic(float* out) {
  __shared__ float s[1000];
  s[threadIdx.x] = 1.0f;
  out[threadIdx.x] = s[threadIdx.x];
}
// Only the attribute tests change this kernel's attributes (they are per kernel, for the whole process).
__global__ void attributeProbe(float* out) {
  __shared__ float s[2048];  // 8 KiB
  s[threadIdx.x] = 1.0f;
  out[threadIdx.x] = s[threadIdx.x];
}
cudaError_t probe_attribute(cudaFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(attributeProbe, attr, value);
}
cudaError_t probe_blocks(int block, std::size_t dynamic_bytes, int* blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, attributeProbe, block, dynamic_bytes);
}
cudaError_t probe_attributes(cudaFuncAttributes* attr) { return cudaFuncGetAttributes(attr, attributeProbe); }

cudaError_t attributes_of(int which, cudaFuncAttributes* attr) {
  if (which == 0) return cudaFuncGetAttributes(attr, tiledStatic<float, 16>);
  if (which == 1) return cudaFuncGetAttributes(attr, tiledStatic<double, 32>);
  if (which == 2) return cudaFuncGetAttributes(attr, bigStatic);
  return cudaFuncGetAttributes(attr, scaleGridStride);
}
cudaError_t blocks_per_sm(int which, int block, std::size_t dynamic_bytes, int* blocks) {
  if (which == 0)
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, tiledStatic<float, 16>, block, dynamic_bytes);
  if (which == 2) return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, bigStatic, block, dynamic_bytes);
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, scaleGridStride, block, dynamic_bytes);
}

// Atomics on __shared__ scalars whose type is a typedef, a struct or a vector type (once skipped in check mode as "in
// no memory the GPU can reach": only arrays and arithmetic scalars were made known to the block), and atomicExch() as
// the first store to a word (once an uninitialized read: it does not depend on the old value).
typedef float real_t;
struct Tally {
  int count;
  float sum;
};

__global__ void scalarAtomics(const float* in, float* out) {
  __shared__ real_t total;
  __shared__ Tally tally;
  __shared__ int2 pair;
  __shared__ int slot[64];
  const int t = threadIdx.x;
  if (t == 0) {
    total = 0.0f;
    tally.count = 0;
    tally.sum = 0.0f;
    pair = make_int2(0, 0);
  }
  atomicExch(&slot[t], 2 * t);
  __syncthreads();
  atomicAdd(&total, in[t]);
  atomicAdd(&tally.count, 1);
  atomicAdd(&tally.sum, in[t]);
  atomicAdd(&pair.y, t);
  __syncthreads();
  out[t] = static_cast<float>(slot[63 - t]);
  if (t == 0) {
    out[64] = total;
    out[65] = static_cast<float>(tally.count);
    out[66] = tally.sum;
    out[67] = static_cast<float>(pair.y);
  }
}

cudaError_t run_scalar_atomics(const float* in, float* out) {
  scalarAtomics<<<1, 64>>>(in, out);
  return cudaDeviceSynchronize();
}

// Lock-free updates of __shared__ words with atomicCAS loops, as the CUDA Programming Guide writes atomicAdd for
// double: a plain read of the word as the first guess, then compare-and-swap until no other thread came in between.
// The plain read and other threads' atomicCAS do not race (the swap checks the guess; it was once reported as a race);
// a plain store of the initial value with no __syncthreads() before the other threads' loops does (zero_synced false).
__device__ float casMaxFloat(float* address, float v) {
  int* word = reinterpret_cast<int*>(address);
  int old = *word;
  while (__int_as_float(old) < v) {
    const int assumed = old;
    old = atomicCAS(word, assumed, __float_as_int(v));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}
__device__ double casAddDouble(double* address, double v) {
  auto* word = reinterpret_cast<unsigned long long*>(address);
  unsigned long long old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed,
                    static_cast<unsigned long long>(
                        __double_as_longlong(v + __longlong_as_double(static_cast<long long>(assumed)))));
  } while (assumed != old);
  return __longlong_as_double(static_cast<long long>(old));
}
__global__ void casLoops(const float* in, float* out, bool zero_synced) {
  __shared__ float top;
  __shared__ double total;
  if (threadIdx.x == 0) {
    top = -1.0f;  // @cas-init
    total = 0.0;
  }
  if (zero_synced) __syncthreads();
  casMaxFloat(&top, in[threadIdx.x]);
  casAddDouble(&total, in[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    out[0] = top;
    out[1] = static_cast<float>(total);
  }
}
cudaError_t run_cas_loops(const float* in, float* out, int threads, bool zero_synced) {
  casLoops<<<1, threads>>>(in, out, zero_synced);
  return cudaDeviceSynchronize();
}
