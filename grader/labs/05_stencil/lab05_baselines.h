// Lab 05 — the baseline the perf test times the lab against (grader/labs/05_stencil/stencil_global.cu).
#pragma once

#include <cuda_runtime.h>

// The same contract as stencil() in lab05_stencil.h, computed with one thread per output reading its 2 * radius + 1
// inputs straight from global memory: the reuse between neighbouring outputs is left to the L1 cache.
void stencil_global(const float* in, float* out, int n, int radius, cudaStream_t stream);
