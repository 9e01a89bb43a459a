// Lab 04 — the baseline the perf and bank-conflict tests compare padded_gemm() with (baselines/gemm_unpadded.cu).
#pragma once

#include <cuda_runtime.h>

// The lab 04 starting point, unchanged: the column-walking tiled GEMM with an unpadded 32 x 32 A tile, whose reads
// As[tx][p] are 32-way bank conflicts.
void unpadded_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
