// Self-test kernels of the CPU backend: correct programs. Compiled through
// course-rewrite in fast and in check mode.
#include "kernels.h"

#include <cuda_runtime.h>

__global__ void matAdd(const float* a, const float* b, float* c, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

cudaError_t run_mat_add(const float* a, const float* b, float* c, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matAdd<<<grid, block>>>(a, b, c, rows, cols);
  return cudaDeviceSynchronize();
}

template <int TILE>
__global__ void gemmTiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    const int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

cudaError_t run_gemm(int tile, const float* A, const float* B, float* C, int M, int N, int K) {
  if (tile == 16) {
    dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
    gemmTiled<16><<<grid, block>>>(A, B, C, M, N, K);
  } else {
    dim3 block(32, 32), grid((N + 31) / 32, (M + 31) / 32);
    gemmTiled<32><<<grid, block, 0, 0>>>(A, B, C, M, N, K);
  }
  return cudaDeviceSynchronize();
}

// Block sum: extern __shared__ sized at launch, tree in shared memory down to
// one warp, then warp shuffles.
__global__ void reduceSum(const float* in, float* out, int n) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s >= 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    float v = sdata[tid];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (tid == 0) atomicAdd(out, v);
  }
}

cudaError_t run_reduce(const float* in, float* out, int n, int block) {
  const int grid = (n + block - 1) / block;
  reduceSum<<<grid, block, block * sizeof(float)>>>(in, out, n);
  return cudaDeviceSynchronize();
}

__global__ void countAtomic(int* counter, unsigned long long* big, float* f) {
  atomicAdd(counter, 1);
  atomicAdd(big, 2ull);
  atomicAdd(f, 1.0f);
}

cudaError_t run_atomics(int* counter, unsigned long long* big, float* f, int blocks, int threads) {
  countAtomic<<<blocks, threads>>>(counter, big, f);
  return cudaDeviceSynchronize();
}

__global__ void emptyKernel(float* p) {
  if (p != nullptr && threadIdx.x == 0 && blockIdx.x == 0) p[0] = 1.0f;
}

cudaError_t launch_with(dim3 grid, dim3 block, std::size_t shmem) {
  emptyKernel<<<grid, block, shmem>>>(nullptr);
  return cudaGetLastError();
}

cudaError_t allow_dynamic_shared(int bytes) {
  return cudaFuncSetAttribute(emptyKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

// Bank-conflict probes: one warp reads a 32x32 tile by rows or columns.
__global__ void bankColumn(float* out) {
  __shared__ float As[32][32];
  for (int r = 0; r < 32; ++r) As[r][threadIdx.x] = r;  // store: row-wise, conflict-free
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 32; ++k) acc += As[threadIdx.x][k];  // @bank-column
  out[threadIdx.x] = acc;
}
__global__ void bankPadded(float* out) {
  __shared__ float As[32][33];
  for (int r = 0; r < 32; ++r) As[r][threadIdx.x] = r;
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 32; ++k) acc += As[threadIdx.x][k];  // @bank-padded
  out[threadIdx.x] = acc;
}
__global__ void bankRow(float* out) {
  __shared__ float As[32][32];
  for (int r = 0; r < 32; ++r) As[r][threadIdx.x] = r;
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 32; ++k) acc += As[k][threadIdx.x];  // @bank-row
  out[threadIdx.x] = acc;
}

// Requests of different shapes one after the other, from a whole warp and
// from part of one (a block of 40 threads: warp 1 has 8 lanes).
__global__ void bankMixed(float* out) {
  __shared__ float s[32 * 33];
  for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < 4; ++k) {
    const int stride = k % 2 == 0 ? 32 : k + 1;  // k = 0, 2: 32 (same bank); 1: 2; 3: 4
    acc += s[lane * stride + k];                 // @bank-mixed
  }
  if (threadIdx.x < 20) acc += s[threadIdx.x * 2];  // @bank-partial
  out[threadIdx.x] = acc;
}

// 16-byte loads: at stride 1 (lane l reads words 4l..4l+3) a warp's 128 words take 4 wavefronts, the fewest they
// can, so no conflict; at stride 2 two lanes of each quarter-warp share banks: 8 wavefronts, 2-way. Half a warp at
// stride 1: 64 words, 2 wavefronts, no conflict.
__global__ void bankWide(float* out) {
  __shared__ __align__(16) float s[32 * 8];
  for (int i = threadIdx.x; i < 32 * 8; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  const float4* s4 = reinterpret_cast<const float4*>(s);
  const unsigned lane = threadIdx.x;
  const float4 a = s4[lane];      // @bank-wide-1
  const float4 b = s4[2 * lane];  // @bank-wide-2
  float acc = a.x + a.w + b.y;
  if (lane < 16) {
    const float4 c = s4[lane + 16];  // @bank-wide-half
    acc += c.z;
  }
  acc += s4[lane].z;  // @bank-wide-member
  out[lane] = acc;
}

cudaError_t run_bank_probe(int which, float* out) {
  if (which == 0)
    bankColumn<<<1, 32>>>(out);
  else if (which == 1)
    bankPadded<<<1, 32>>>(out);
  else if (which == 2)
    bankRow<<<1, 32>>>(out);
  else if (which == 3)
    bankMixed<<<1, 40>>>(out);
  else
    bankWide<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Warp vote / shuffle variants on a 64-thread block.
__global__ void warpOps(int* out) {
  const int lane = threadIdx.x % 32;
  const unsigned ballot = __ballot_sync(0xffffffff, lane % 2 == 0);
  const int up = __shfl_up_sync(0xffffffff, lane, 1);
  const int x = __shfl_xor_sync(0xffffffff, lane, 1);
  const int b0 = __shfl_sync(0xffffffff, lane * 10, 3);
  const int any = __any_sync(0xffffffff, lane == 31);
  const int all = __all_sync(0xffffffff, lane < 31);
  const int cnt = __syncthreads_count(threadIdx.x < 10);
  out[threadIdx.x * 7 + 0] = static_cast<int>(ballot == 0x55555555u);
  out[threadIdx.x * 7 + 1] = up;
  out[threadIdx.x * 7 + 2] = x;
  out[threadIdx.x * 7 + 3] = b0;
  out[threadIdx.x * 7 + 4] = any;
  out[threadIdx.x * 7 + 5] = all;
  out[threadIdx.x * 7 + 6] = cnt;
}

cudaError_t run_warp_ops(int* out) {
  warpOps<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// Kernel templates launched without template arguments (deduced from the
// arguments, as nvcc does). `n` is modified by every thread: parameters are
// per-thread copies.
template <typename T>
__global__ void axpyDeduced(T alpha, const T* x, T* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  n -= static_cast<int>(threadIdx.x);  // must not leak into other threads
  if (i < n + static_cast<int>(threadIdx.x)) y[i] = alpha * x[i] + y[i];
}

template <typename T, typename U>
__global__ void reverseDeduced(const T* in, U* out, int n) {
  __shared__ T tile[64];
  const int t = threadIdx.x;
  tile[t] = t < n ? in[t] : T(0);
  __syncthreads();
  if (t < n) out[t] = static_cast<U>(tile[n - 1 - t]);
}

// Some template arguments explicit, the others deduced.
template <int F, typename T>
__global__ void scaleBy(T* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= static_cast<T>(F);
}

cudaError_t run_deduced(float alpha, const float* x, float* y, int n, const int* in, double* out, int m) {
  axpyDeduced<<<(n + 63) / 64, 64>>>(alpha, x, y, n);
  scaleBy<3><<<(n + 63) / 64, 64>>>(y, n);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return e;
  reverseDeduced<<<1, 64, 0, 0>>>(in, out, m);
  return cudaDeviceSynchronize();
}

// `auto v = s[i];` copies the element, as in CUDA (check mode must not keep a
// proxy that writes shared memory on `v += ...`).
__global__ void autoCopies(float* out) {
  __shared__ float s[32];
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  auto v = s[threadIdx.x];
  v += 100.0f;
  const auto w = out[threadIdx.x], z = s[(threadIdx.x + 1) % 32];
  __syncthreads();
  out[threadIdx.x] = v + s[threadIdx.x] + w + z;
}

cudaError_t run_auto_copies(float* out) {
  autoCopies<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}
