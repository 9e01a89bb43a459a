// Lab 03 — the baseline the perf test times tiled_gemm() against (grader/labs/03_tiled_gemm/gemm_naive.cu).
#pragma once

#include <cuda_runtime.h>

// The lab 02 reference solution, unchanged: coalesced naive GEMM, one thread per element of C, 32 x 32 blocks.
void reference_naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
