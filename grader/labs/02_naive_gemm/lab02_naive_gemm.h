// Lab 02 — the launcher the grader calls. Do not change this signature.
#pragma once

#include <cuda_runtime.h>

// C = A·B with A m x k, B k x n and C m x n, all row-major (A[i][p] at a[i * k + p]) and in device memory.
// Enqueues the work on `stream` and returns without waiting. m, n, k >= 1, independent of each other and of any
// block size; m <= 65535 * 32; every matrix has fewer than 2^31 elements (the grader checks this before calling).
void naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
