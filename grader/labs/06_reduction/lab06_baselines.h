// Lab 06 — the baseline the perf test times the lab against (grader/baselines/reduce_interleaved.cu).
#pragma once

#include <cuda_runtime.h>

// The same contract as reduction() in lab06_reduction.h: a shared-memory tree with interleaved addressing
// (thread tid adds when tid % (2 * s) == 0), one pass per level of the tree, each pass writing one partial sum per
// block into scratch, the last pass writing *result.
void reduce_interleaved(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream);
