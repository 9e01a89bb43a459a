// Lab 07 — the launcher the grader calls. Do not change this signature.
#pragma once

#include <cuda_runtime.h>

// C = A·B with A m x k, B k x n and C m x n, all row-major and in device memory, in FP32. Enqueues the work on
// `stream` and returns without waiting. m, n, k >= 1; every matrix has fewer than 2^31 elements; the pointers are
// cudaMalloc'ed (256-byte aligned), but rows start 16-byte aligned only when their length is a multiple of 4.
// m <= 8,388,480 (one row of 128 x 128 blocks per 128 rows of C; gridDim.y is at most 65,535) and k <= 2^31 - 16.
void double_buffered_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
