// Lab 06 — the launcher the grader calls. Do not change this signature.
#pragma once

#include <cuda_runtime.h>

// Block sizes the grader uses: powers of two from 64 to 1024. A tree that halves the number of active threads at
// every step needs a power of two; the caller rejects any other block size before calling reduction().
constexpr int kReductionMinBlock = 64;
constexpr int kReductionMaxBlock = 1024;
// The largest n: a grid-stride loop may step an index past n by a few grids before it stops, still within an int.
constexpr int kReductionMaxN = 1 << 30;

// How many floats of scratch memory reduction() may use: one partial sum per block of block_size inputs, then one
// per block of those, and so on down to one (enough for a multi-pass tree; a grid-stride design needs far fewer).
// Preconditions as for reduction().
inline int reduction_scratch_elements(int n, int block_size) {
  long long total = 0;
  long long level = n;
  do {
    level = (level + block_size - 1) / block_size;
    total += level;
  } while (level > 1);
  return static_cast<int>(total);
}

// *result = in[0] + in[1] + ... + in[n - 1], in any order of additions.
// in, result and scratch are device memory; scratch holds reduction_scratch_elements(n, block_size) floats whose
// contents on entry are arbitrary (the launcher may overwrite them). in is not changed. Enqueues the work on
// `stream` and returns without waiting: the caller synchronizes before reading *result.
// Preconditions (the caller checks them; the launcher does not): 1 <= n <= kReductionMaxN; block_size a power of two
// with kReductionMinBlock <= block_size <= kReductionMaxBlock; in 16-byte aligned (any cudaMalloc pointer is).
void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream);
