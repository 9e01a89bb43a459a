// Bench only, never graded: the kernels of the occupancy chapter (docs/occupancy.md); what each shows is in
// occupancy_kernels.h. See the registers and spills the compiler chose for each __launch_bounds__ with
//   nvcc -arch=sm_90 -Xptxas -v -c -I common/include grader/bench/cases/occupancy_kernels.cu
// The bench records the same facts at run time (cudaFuncGetAttributes: numRegs, localSizeBytes).
#include "cases/occupancy_kernels.h"

#include <course/cuda_check.h>

#include <stdexcept>
#include <string>

namespace occupancy {

// ---- GPU kernels ----------------------------------------------------------------------------------------------------

// One block: a 128 x 128 tile of C. Thread (ty, tx) of a 16 x 16 grid owns rows 4 ty .. 4 ty + 3 and 64 + 4 ty ..
// 64 + 4 ty + 3 of it, and the same columns with tx: 64 accumulators, and 16 operands per k step, in registers. The
// code is the same in every instance: only the launch bound, and so the register cap, differs.
template <int MinBlocks>
__global__ void __launch_bounds__(kGemmThreads, MinBlocks)
    bounded_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                        int k) {
  __shared__ __align__(16) float As[kGemmStep][kGemmTile];  // As[p][i] = A[row0 + i][k0 + p] (transposed)
  __shared__ __align__(16) float Bs[kGemmStep][kGemmTile];  // Bs[p][j] = B[k0 + p][col0 + j]
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * kGemmTile, col0 = blockIdx.x * kGemmTile;
  float acc[8][8] = {};
  for (int k0 = 0; k0 < k; k0 += kGemmStep) {
    {  // A: 128 rows x 8 columns, one float4 of a row per thread
      const int i = tid / 2, p = (tid % 2) * 4;
      const float4 v = *reinterpret_cast<const float4*>(a + (static_cast<long long>(row0 + i) * k + k0 + p));
      As[p][i] = v.x;
      As[p + 1][i] = v.y;
      As[p + 2][i] = v.z;
      As[p + 3][i] = v.w;
    }
    {  // B: 8 rows x 128 columns, one float4 per thread
      const int p = tid / 32, j = (tid % 32) * 4;
      *reinterpret_cast<float4*>(&Bs[p][j]) =
          *reinterpret_cast<const float4*>(b + (static_cast<long long>(k0 + p) * n + col0 + j));
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kGemmStep; ++p) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[p][4 * ty]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[p][64 + 4 * ty]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[p][4 * tx]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[p][64 + 4 * tx]);
      const float ar[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float br[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ar[i], br[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + (i / 4) * 64 + 4 * ty + i % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float* dst = c + (static_cast<long long>(row) * n + col0 + h * 64 + 4 * tx);
      *reinterpret_cast<float4*>(dst) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
    }
  }
}

// Each block reverses tiles of `tile` floats through its dynamic shared memory (tile * 4 bytes of it): a copy whose
// shared footprint is a launch parameter. Config only makes four distinct kernels, whose attributes are set apart.
template <int Config>
__global__ void staged_reverse_kernel(const float* __restrict__ in, float* __restrict__ out, long long n, int tile) {
  extern __shared__ float stage[];
  for (long long base = static_cast<long long>(blockIdx.x) * tile; base < n;
       base += static_cast<long long>(gridDim.x) * tile) {
    const int len = static_cast<int>(n - base < tile ? n - base : tile);
    for (int j = threadIdx.x; j < len; j += blockDim.x) stage[j] = in[base + j];
    __syncthreads();
    for (int j = threadIdx.x; j < len; j += blockDim.x) out[base + j] = stage[len - 1 - j];
    __syncthreads();
  }
}

// ---- host side ------------------------------------------------------------------------------------------------------

namespace {

template <class Kernel>
KernelFacts facts_of(Kernel* kernel, int threads, std::size_t dynamic_bytes) {
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  KernelFacts f;
  f.registers = attr.numRegs;
  f.local_bytes = attr.localSizeBytes;
  f.static_shared_bytes = attr.sharedSizeBytes;
  f.max_dynamic_shared_bytes = attr.maxDynamicSharedSizeBytes;
  f.preferred_carveout = attr.preferredShmemCarveout;
  // Not CUDA_CHECK: what the API answers for a footprint the kernel may not launch with is part of what is measured.
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&f.blocks_per_sm, kernel, threads, dynamic_bytes);
  if (e != cudaSuccess) {
    f.blocks_per_sm = 0;
    f.occupancy_error = cudaGetErrorName(e);
    static_cast<void>(cudaGetLastError());  // not sticky: clear it
  }
  return f;
}

using GemmKernel = void(const float*, const float*, float*, int, int, int);
GemmKernel* gemm_kernel(int min_blocks) {
  switch (min_blocks) {
    case 1:
      return bounded_gemm_kernel<1>;
    case 2:
      return bounded_gemm_kernel<2>;
    case 3:
      return bounded_gemm_kernel<3>;
    case 4:
      return bounded_gemm_kernel<4>;
    default:
      throw std::invalid_argument("bounded_gemm: no instance for min_blocks = " + std::to_string(min_blocks));
  }
}

using ReverseKernel = void(const float*, float*, long long, int);
ReverseKernel* reverse_kernel(Config config) {
  switch (config) {
    case Config::max_shared:
      return staged_reverse_kernel<0>;
    case Config::automatic:
      return staged_reverse_kernel<1>;
    case Config::max_l1:
      return staged_reverse_kernel<2>;
    case Config::no_opt_in:
      return staged_reverse_kernel<3>;
  }
  throw std::invalid_argument("staged_reverse: unknown configuration");
}

int reverse_tile(std::size_t shared_bytes) {
  if (shared_bytes < 4 * kReverseThreads || shared_bytes % 4 != 0)
    throw std::invalid_argument("staged_reverse: the footprint must be a multiple of 4 bytes, at least " +
                                std::to_string(4 * kReverseThreads) + " (one float per thread)");
  return static_cast<int>(shared_bytes / 4);
}

}  // namespace

void bounded_gemm(int min_blocks, const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0 || m % kGemmTile != 0 || n % kGemmTile != 0 || k % kGemmStep != 0)
    throw std::invalid_argument("bounded_gemm: m and n must be multiples of 128 and k of 8 (m=" + std::to_string(m) +
                                ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ")");
  static_cast<void>(gemm_kernel(min_blocks));  // throws for an instance that does not exist
  const dim3 grid(n / kGemmTile, m / kGemmTile);
  switch (min_blocks) {  // a launch names its kernel: the CPU backend's rewriter needs the template argument
    case 1:
      bounded_gemm_kernel<1><<<grid, kGemmThreads, 0, stream>>>(a, b, c, m, n, k);
      break;
    case 2:
      bounded_gemm_kernel<2><<<grid, kGemmThreads, 0, stream>>>(a, b, c, m, n, k);
      break;
    case 3:
      bounded_gemm_kernel<3><<<grid, kGemmThreads, 0, stream>>>(a, b, c, m, n, k);
      break;
    default:
      bounded_gemm_kernel<4><<<grid, kGemmThreads, 0, stream>>>(a, b, c, m, n, k);
      break;
  }
  COURSE_CHECK_LAUNCH("bounded_gemm_kernel");
}

KernelFacts bounded_gemm_facts(int min_blocks) { return facts_of(gemm_kernel(min_blocks), kGemmThreads, 0); }

void prepare_staged_reverse(Config config, std::size_t shared_bytes) {
  ReverseKernel* kernel = reverse_kernel(config);
  if (config == Config::no_opt_in) return;
  if (config == Config::max_shared)
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  if (config == Config::max_l1)
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1));
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  if (shared_bytes > static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes))  // the opt-in, above 48 KiB
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
}

KernelFacts staged_reverse_facts(Config config, std::size_t shared_bytes) {
  return facts_of(reverse_kernel(config), kReverseThreads, shared_bytes);
}

cudaError_t try_staged_reverse(Config config, const float* in, float* out, long long n, std::size_t shared_bytes,
                               cudaStream_t stream) {
  const int tile = reverse_tile(shared_bytes);
  const long long tiles = (n + tile - 1) / tile;
  const unsigned grid = static_cast<unsigned>(tiles < (1LL << 30) ? tiles : (1LL << 30));
  switch (config) {  // the template argument at each launch, for the CPU backend's rewriter
    case Config::max_shared:
      staged_reverse_kernel<0><<<grid, kReverseThreads, shared_bytes, stream>>>(in, out, n, tile);
      break;
    case Config::automatic:
      staged_reverse_kernel<1><<<grid, kReverseThreads, shared_bytes, stream>>>(in, out, n, tile);
      break;
    case Config::max_l1:
      staged_reverse_kernel<2><<<grid, kReverseThreads, shared_bytes, stream>>>(in, out, n, tile);
      break;
    case Config::no_opt_in:
      staged_reverse_kernel<3><<<grid, kReverseThreads, shared_bytes, stream>>>(in, out, n, tile);
      break;
  }
  return cudaGetLastError();  // returns the launch's error and clears it (a launch error is not sticky)
}

void staged_reverse(Config config, const float* in, float* out, long long n, std::size_t shared_bytes,
                    cudaStream_t stream) {
  CUDA_CHECK(try_staged_reverse(config, in, out, n, shared_bytes, stream));
}

}  // namespace occupancy
