// Lab 02 — the baseline the perf test times naive_gemm() against (grader/labs/02_naive_gemm/gemm_uncoalesced.cu).
#pragma once

#include <cuda_runtime.h>

// The same C = A·B as naive_gemm(), with the thread-to-data mapping turned around: threadIdx.x walks the ROWS of C.
// The 32 lanes of a warp then read A and write C 32 rows apart (k or n floats apart): uncoalesced.
void uncoalesced_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
