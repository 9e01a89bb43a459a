// Host entry points of the self-test kernels of the extra intrinsics and runtime API (kernels_extras.cu).
#pragma once

#include <cuda_runtime.h>

// out[5 * i + k] = in[i] loaded with the k-th cache-hint load (__ldcs, __ldcg, __ldca, __ldlu, __ldcv) and stored
// with a cache-hint store; n threads.
cudaError_t run_cache_hints(const float* in, float* out, int n);
// One block of 64 threads (2 warps); per thread t, out[8 * t + k]: __reduce_add/min/max_sync (int), and/or/xor
// (unsigned) over the warp, __match_any_sync(in[t]), __match_all_sync(in[t] of warp 1 only). Lanes 16..31 of warp 0
// use the mask 0xffff0000, lanes 0..15 the mask 0x0000ffff.
cudaError_t run_warp_reductions(const int* in, int* out);
// 2 blocks of 32 threads; thread 5 of block 1 calls __trap(); out[t] = 1 for every thread that got past it.
cudaError_t run_trap(int* out);
// assert(in[t] >= 0) in a kernel of 2 blocks of 32 threads.
cudaError_t run_assert(const int* in, int* out);
// Shifts by counts of 32 and more (clamped, as a GPU's shl and shr), and sm_90's float2/float4 atomicAdd.
cudaError_t run_gpu_shifts(const int* counts, unsigned* out, float2* sum2, float4* sum4);
// out[k] = the k-th device math / conversion / integer intrinsic of x (one thread): see kernels_extras.cu.
cudaError_t run_device_math(float x, double* out);
// cudaLaunchKernel(fill, 2 blocks, 32 threads, {out, value}): out[i] = value + i.
cudaError_t run_launch_kernel(int* out, int value);
// The address of the __device__ int array symbol[8] (cudaGetSymbolAddress), and its size (cudaGetSymbolSize); a
// kernel writes symbol[i] = 10 * i through that address, and the array is read back with cudaMemcpyFromSymbol.
cudaError_t run_symbol_address(int* host_copy, std::size_t* size);
// A kernel with a 320 KiB local array per thread (64 threads): out[t] = a sum over it.
cudaError_t run_big_local_array(float* out);
// Two threads t, in[0..2]: out[6t] = min(in[0], in[1]) (a cuda::std::array and pair), out[6t + 1] =
// cuda::std::numeric_limits<float>::max(), out[6t + 2] = cuda::ceil_div(n, 16) + cuda::round_up(n, 16) +
// cuda::round_down(n, 16), out[6t + 3] = 100 * cuda::ilog2(n) + cuda::ilog10(n); then with s = {in[1], in[0]} (a
// shared pair swapped by cuda::std::swap) out[6t + 4] = cuda::std::max(s[t], 0), out[6t + 5] = cuda::std::min(s[0],
// s[1]) + 10 s[0].
cudaError_t run_libcu_std(const float* in, float* out, int n);
// __shared__ cuda::std::array objects, alone and in an array; out: 64 floats; mode 1 drops the barrier (a race).
cudaError_t run_shared_std_arrays(float* out, int mode);
