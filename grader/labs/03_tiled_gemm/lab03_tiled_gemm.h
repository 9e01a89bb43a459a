// Lab 03 — the launcher the grader calls. Do not change this signature.
#pragma once

#include <cuda_runtime.h>

// C = A·B with A m x k, B k x n and C m x n, all row-major and in device memory, computed by Tile x Tile blocks
// that stage Tile x Tile tiles of A and B in shared memory. Enqueues the work on `stream` and returns without
// waiting. m, n, k >= 1 and independent of Tile; every matrix has fewer than 2^31 elements.
// The grader calls tiled_gemm<16> and tiled_gemm<32>; tiled_gemm.cu instantiates both.
template <int Tile>
void tiled_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);

extern template void tiled_gemm<16>(const float*, const float*, float*, int, int, int, cudaStream_t);
extern template void tiled_gemm<32>(const float*, const float*, float*, int, int, int, cudaStream_t);
