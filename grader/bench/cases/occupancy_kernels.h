// Bench only, never graded: the kernels that the occupancy chapter (docs/occupancy.md) measures, timed by the
// bench-only cases of lab 07 (cases/lab07_occupancy.cpp). Defined in occupancy_kernels.cu.
//
//   bounded_gemm     a register-blocked FP32 GEMM (128 x 128 tile of C per block of 256 threads, 8 x 8 per thread)
//                    compiled four times, under __launch_bounds__(256, B) for B = 1, 2, 3, 4: the register cap that
//                    B blocks per SM leave each thread (65536 / (256 B)) is 255, 128, 85, 64; below what the kernel
//                    needs, the compiler spills to local memory.
//   staged_reverse   a copy that stages each tile of the input in dynamic shared memory and writes it reversed: its
//                    shared footprint per block is a launch parameter, swept across 48 KiB, in four copies of the
//                    kernel that differ in their attributes only (the carveout, and whether the > 48 KiB opt-in is
//                    set).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace occupancy {

// What the compiler and the occupancy API say about one kernel: cudaFuncGetAttributes and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor at its block size and dynamic shared memory.
struct KernelFacts {
  int registers = 0;            // per thread (the CPU backend's model says 32)
  std::size_t local_bytes = 0;  // per thread: spilled registers (and arrays the compiler put in local memory)
  std::size_t static_shared_bytes = 0;
  int max_dynamic_shared_bytes = 0;  // the launch limit on dynamic shared memory: 48 KiB unless raised
  int preferred_carveout = 0;        // the attribute as set: -1 default, else a percentage
  int blocks_per_sm = 0;             // resident blocks per SM, from the occupancy API
  std::string occupancy_error;       // what the occupancy API returned when it failed ("" when it answered)
};

// ---- bounded_gemm ---------------------------------------------------------------------------------------------------

constexpr int kGemmThreads = 256;
constexpr int kGemmTile = 128;  // rows and columns of C per block
constexpr int kGemmStep = 8;    // k-tile
constexpr int kMinBlocks[] = {1, 2, 3, 4};

// C = A·B, A m x k, B k x n, row-major, with the kernel compiled under __launch_bounds__(256, min_blocks)
// (min_blocks: one of kMinBlocks). m and n multiples of 128 and k of 8, else std::invalid_argument.
void bounded_gemm(int min_blocks, const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
KernelFacts bounded_gemm_facts(int min_blocks);

// ---- staged_reverse ------------------------------------------------------------------------------------------------

// Four copies of one kernel. Each is set up by prepare_staged_reverse() before a launch at a footprint:
enum class Config {
  max_shared,  // carveout hint 100 % (cudaSharedmemCarveoutMaxShared); opt-in above 48 KiB
  automatic,   // carveout attribute left as it is (the driver chooses); opt-in above 48 KiB
  max_l1,      // carveout hint 0 % (cudaSharedmemCarveoutMaxL1); opt-in above 48 KiB
  no_opt_in,   // nothing set: the dynamic shared memory limit stays at its default, 48 KiB
};
constexpr int kReverseThreads = 256;

// Sets the attributes of `config`'s kernel for launches with `shared_bytes` of dynamic shared memory per block:
// its carveout, and cudaFuncAttributeMaxDynamicSharedMemorySize = shared_bytes when that exceeds the default limit
// (none for Config::no_opt_in).
void prepare_staged_reverse(Config config, std::size_t shared_bytes);
KernelFacts staged_reverse_facts(Config config, std::size_t shared_bytes);
// out[t + j] = in[t + len - 1 - j] within each tile of shared_bytes / 4 floats (len: the tile's length, shorter at
// the end). Throws what the launch returned (course::CudaError) when it fails.
void staged_reverse(Config config, const float* in, float* out, long long n, std::size_t shared_bytes,
                    cudaStream_t stream);
// The same launch, not checked: the error the launch returned (cudaSuccess when it ran), cleared.
cudaError_t try_staged_reverse(Config config, const float* in, float* out, long long n, std::size_t shared_bytes,
                               cudaStream_t stream);

}  // namespace occupancy
