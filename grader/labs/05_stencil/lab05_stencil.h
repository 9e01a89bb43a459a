// Lab 05 — the launcher the grader calls. Do not change this signature.
#pragma once

#include <cuda_runtime.h>

// The largest radius the grader uses. A block's tile holds its outputs plus 2 * radius halo elements; with
// 1024 outputs per block and radius 1024 that is 12 KB of shared memory, well under the 48 KB a launch may ask for
// without cudaFuncSetAttribute.
constexpr int kStencilMaxRadius = 1024;
// The largest n: indices up to n + a tile + 2 * kStencilMaxRadius still fit an int.
constexpr int kStencilMaxN = 1 << 30;

// out[i] = in[i - radius] + ... + in[i] + ... + in[i + radius] for every 0 <= i < n.
// Boundary policy: an input outside [0, n) counts as 0 (out[0] sums in[0 .. radius] only).
// in and out are device memory and do not overlap. Enqueues the work on `stream` and returns without waiting.
// Preconditions (the caller checks them; the launcher does not): 1 <= n <= kStencilMaxN and
// 0 <= radius <= kStencilMaxRadius (radius may exceed n); in is 16-byte aligned (any cudaMalloc pointer is), so a
// launcher may read it as float4.
void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream);
