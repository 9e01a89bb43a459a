// Idiom: the access macros of public SGEMM code. FETCH_FLOAT4 reads four floats of a tile row at once (a broadcast
// across the row's threads), __ldg loads A and B through the read-only cache. Check mode once saw neither (a macro's
// body is not in the file's tokens; __ldg took a pointer): a race or an index past the tile through them went
// unreported.
#include "lab03_tiled_gemm.h"

#define FETCH_FLOAT4(p) (reinterpret_cast<const float4*>(&(p))[0])

template <int Tile>
__global__ void tiled_gemm_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k) {
  __shared__ __align__(16) float As[Tile][Tile];
  __shared__ float Bs[Tile][Tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
  float acc = 0.0f;
  for (int t = 0; t < k; t += Tile) {
    As[ty][tx] = (row < m && t + tx < k) ? __ldg(&a[row * k + t + tx]) : 0.0f;
    Bs[ty][tx] = (t + ty < k && col < n) ? __ldg(b + (t + ty) * n + col) : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < Tile; p += 4) {
      const float4 a4 = FETCH_FLOAT4(As[ty][p]);
      acc += a4.x * Bs[p][tx] + a4.y * Bs[p + 1][tx] + a4.z * Bs[p + 2][tx] + a4.w * Bs[p + 3][tx];
    }
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  const dim3 threads(Tile, Tile), blocks((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
  tiled_gemm_kernel<Tile><<<blocks, threads, 0, stream>>>(a, b, c, m, n, k);
}

template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
