// Host entry points of the self-test kernels of races in global memory (kernels_global.cu; check mode:
// src/check_global.cpp). Each takes a mode: 0 is the correct form, the others the bug named (or another correct form).
#pragma once

#include <cuda_runtime.h>

// One block of 128 threads counting into bins[4] (zeroed here): thread t adds 1 to bins[t % 4]. Mode 0: atomicAdd;
// 1: `bins[t % 4] += 1` (a race in the block: lanes of one warp update one element).
cudaError_t run_block_histogram(int* bins, int mode);
// 4 blocks of 64 threads, each summing its 64 inputs (in: 256 floats) in shared memory; thread 0 then combines: mode
// 0: atomicAdd(out, sum); 1: `*out += sum` (a race between blocks); 2: out[1 + blockIdx.x] = sum (no race); 3: block 0
// zeroes *out and every block adds with atomicAdd (the zeroing races with the other blocks' atomics); 4: every block
// stores 1 to out[5] (the same value: no race) and its sum to out[1 + blockIdx.x]. *out is zeroed here before.
cudaError_t run_block_sums(const float* in, float* out, int mode);
// The one-pass reduction of the CUDA samples' threadFenceReduction: 4 blocks of 64 threads store their sums to
// partial[b] (zeroed here), the last block (by an atomicInc ticket on *ticket, a cudaMalloc'ed word) adds them up,
// stores the total to *out and to partial[0], and resets the ticket. Mode 0: __threadfence() between the store and
// the ticket; 1: without it (a race: the last block may read a partial sum not yet visible); 2: no ticket, block 3
// reads the partial sums (a race).
cudaError_t run_last_block(const float* in, float* partial, float* out, unsigned* ticket, int mode);
// 4 blocks of 32 threads; thread 0 of each block stores its block index to *word. Mode 0: through a volatile int*
// (relaxed stores: no race); 1: through a plain int* (a race between blocks: which value remains depends on timing).
cudaError_t run_block_flags(int* word, int mode);
// One block of 64 threads (cell[0..2) zeroed here): thread 0 stores 7 to *cell, then every thread reads it into
// out[t]. Mode 0: a __syncthreads() between; 1: none (a race); 2: lane 0 of each warp stores to cell[warp] and its
// lanes read it after a __syncwarp() (ordered); 3: the same without the __syncwarp() (a race).
cudaError_t run_broadcast(int* cell, int* out, int mode);
// 3 blocks of 64 threads take the maximum of in[0..192) into out[0] (out[0..2) zeroed here) with an atomicCAS loop
// whose first guess is a plain read of it, and into out[1] with `if (v > out[1]) atomicMax(&out[1], v)`; and
// out_bytes[t] = t for every thread (neighbouring bytes written by different threads: no race).
cudaError_t run_cas_max(const unsigned* in, unsigned* out, unsigned char* out_bytes);
// 16 blocks chained through a __device__ volatile int flags[16] (flags null) or through flags[16] in a buffer, set
// plainly and polled through a volatile pointer: block b waits for flag b - 1, reads prefix[b - 1] (after a
// __threadfence() in the first form), stores prefix[b] = prefix[b - 1] + 1, fences and sets its flag (no race).
cudaError_t run_chained_blocks(int* prefix, int* flags);
// Three launches of n one-thread blocks: block i stores 0 to mask[i], then 255 unless (i + launch) % 3 == 0
// (neighbouring bytes of one word stored by different blocks at once, on different workers: no race).
cudaError_t run_byte_pixels(unsigned char* mask, int n);
// Three launches of n one-thread blocks (found[0 .. n/2) zeroed before each): block i stores 1 to found[i / 2], the
// same value as its neighbour, often at the same time on another worker (no race).
cudaError_t run_mark_pairs(int* found, int n);
// 16 one-thread blocks: block 0 stores 50 to *limit (zeroed here), the others compare in[b] with it, as `*limit <
// in[b]` and `in[b] > *limit` (a race between blocks).
cudaError_t run_compare_limit(int* limit, const int* in, int* out);
