// Self-test kernels of races in global memory (kernels_global.h says what each mode does). Markers (`@name`) mark the
// lines the tests expect in findings.
#include "kernels_global.h"

__global__ void blockHistogram(int* bins, int mode) {
  const int t = threadIdx.x;
  if (mode == 0)
    atomicAdd(&bins[t % 4], 1);
  else
    bins[t % 4] += 1;  // @bins-plain
}

cudaError_t run_block_histogram(int* bins, int mode) {
  cudaMemset(bins, 0, 4 * sizeof(int));
  blockHistogram<<<1, 128>>>(bins, mode);
  return cudaDeviceSynchronize();
}

// The sum of the block's 64 inputs in[64 * blockIdx.x ..], left in s[0].
__device__ void sumOfBlock(const float* in, float* s) {
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (int step = 32; step > 0; step /= 2) {
    if (t < step) s[t] += s[t + step];
    __syncthreads();
  }
}

__global__ void blockSums(const float* in, float* out, int mode) {
  __shared__ float s[64];
  sumOfBlock(in, s);
  if (threadIdx.x != 0) return;
  if (mode == 0) {
    atomicAdd(out, s[0]);
  } else if (mode == 1) {
    *out += s[0];  // @sum-plain
  } else if (mode == 2) {
    out[1 + blockIdx.x] = s[0];
  } else if (mode == 3) {
    if (blockIdx.x == 0) *out = 0.0f;  // @sum-zero
    atomicAdd(out, s[0]);              // @sum-atomic
  } else {
    out[5] = 1.0f;
    out[1 + blockIdx.x] = s[0];
  }
}

cudaError_t run_block_sums(const float* in, float* out, int mode) {
  cudaMemset(out, 0, sizeof(float));
  blockSums<<<4, 64>>>(in, out, mode);
  return cudaDeviceSynchronize();
}

__global__ void lastBlock(const float* in, float* partial, float* out, unsigned* ticket, int mode) {
  __shared__ float s[64];
  __shared__ bool last;
  const int t = threadIdx.x;
  sumOfBlock(in, s);
  if (t == 0) {
    partial[blockIdx.x] = s[0];  // @last-partial
    if (mode == 0) __threadfence();
    last = mode == 2 ? blockIdx.x == gridDim.x - 1 : atomicInc(ticket, gridDim.x) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];  // @last-read
    *out = total;
    partial[0] = total;  // @last-store
    *ticket = 0;
  }
}

cudaError_t run_last_block(const float* in, float* partial, float* out, unsigned* ticket, int mode) {
  cudaMemset(ticket, 0, sizeof(unsigned));
  cudaMemset(partial, 0, 4 * sizeof(float));  // (a store of the bytes a word holds races with no read)
  lastBlock<<<4, 64>>>(in, partial, out, ticket, mode);
  return cudaDeviceSynchronize();
}

__global__ void volatileFlags(volatile int* word) {
  if (threadIdx.x == 0) *word = static_cast<int>(blockIdx.x);
}
__global__ void plainFlags(int* word) {
  if (threadIdx.x == 0) *word = static_cast<int>(blockIdx.x);  // @flag-plain
}

cudaError_t run_block_flags(int* word, int mode) {
  if (mode == 0)
    volatileFlags<<<4, 32>>>(word);
  else
    plainFlags<<<4, 32>>>(word);
  return cudaDeviceSynchronize();
}

__global__ void broadcast(int* cell, int* out, int mode) {
  const int t = threadIdx.x, warp = t / 32;
  if (mode <= 1) {
    if (t == 0) *cell = 7;
    if (mode == 0) __syncthreads();
    out[t] = *cell;  // @bcast-read
  } else {
    if (t % 32 == 0) cell[warp] = 7 + warp;
    if (mode == 2) __syncwarp();
    out[t] = cell[warp];  // @warp-read
  }
}

cudaError_t run_broadcast(int* cell, int* out, int mode) {
  cudaMemset(cell, 0, 2 * sizeof(int));
  broadcast<<<1, 64>>>(cell, out, mode);
  return cudaDeviceSynchronize();
}

__global__ void casMax(const unsigned* in, unsigned* out, unsigned char* out_bytes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned v = in[i];
  unsigned old = *out;
  while (old < v) {
    const unsigned assumed = old;
    old = atomicCAS(out, assumed, v);
    if (old == assumed) break;
  }
  if (v > out[1]) atomicMax(&out[1], v);  // a plain read as a hint before the atomic
  out_bytes[i] = static_cast<unsigned char>(i);
}

cudaError_t run_cas_max(const unsigned* in, unsigned* out, unsigned char* out_bytes) {
  cudaMemset(out, 0, 2 * sizeof(unsigned));
  casMax<<<3, 64>>>(in, out, out_bytes);
  return cudaDeviceSynchronize();
}

__device__ volatile int chainFlags[16];

__global__ void chainedBlocks(int* prefix) {
  if (threadIdx.x != 0) return;
  const int b = blockIdx.x;
  int carry = 0;
  if (b > 0) {
    while (chainFlags[b - 1] == 0) {
    }
    __threadfence();
    carry = prefix[b - 1];
  }
  prefix[b] = carry + 1;
  __threadfence();
  chainFlags[b] = 1;
}

// The same with the flags in a buffer, set with a plain store after the fence and polled through a volatile pointer.
__global__ void chainedBlocksPlainFlags(int* prefix, int* flags) {
  if (threadIdx.x != 0) return;
  const int b = blockIdx.x;
  int carry = 0;
  if (b > 0) {
    const volatile int* f = flags;
    while (f[b - 1] == 0) {
    }
    carry = prefix[b - 1];
  }
  prefix[b] = carry + 1;
  __threadfence();
  flags[b] = 1;
}

cudaError_t run_chained_blocks(int* prefix, int* flags) {
  if (flags == nullptr) {
    const int zero[16] = {};
    cudaMemcpyToSymbol(chainFlags, zero, sizeof zero);
    chainedBlocks<<<16, 32>>>(prefix);
  } else {
    cudaMemset(flags, 0, 16 * sizeof(int));
    chainedBlocksPlainFlags<<<16, 32>>>(prefix, flags);
  }
  return cudaDeviceSynchronize();
}

__global__ void bytePixels(unsigned char* mask, int mode) {
  const int i = blockIdx.x;
  mask[i] = 0;
  if ((i + mode) % 3 != 0) mask[i] = 255;
}

cudaError_t run_byte_pixels(unsigned char* mask, int n) {
  for (int mode = 0; mode < 3; ++mode) bytePixels<<<n, 1>>>(mask, mode);
  return cudaDeviceSynchronize();
}

__global__ void markPairs(int* found) { found[blockIdx.x / 2] = 1; }

cudaError_t run_mark_pairs(int* found, int n) {
  for (int launch = 0; launch < 3; ++launch) {
    cudaMemset(found, 0, n / 2 * sizeof(int));
    markPairs<<<n, 1>>>(found);
  }
  return cudaDeviceSynchronize();
}

__global__ void compareLimit(int* limit, const int* in, int* out) {
  const int b = blockIdx.x;
  if (b == 0) *limit = 50;
  if (b > 0) {
    out[b] = *limit < in[b] ? 1 : 0;  // @limit-compare
    if (in[b] > *limit) out[b] += 1;  // @limit-compare-2
  }
}

cudaError_t run_compare_limit(int* limit, const int* in, int* out) {
  cudaMemset(limit, 0, sizeof(int));
  compareLimit<<<16, 1>>>(limit, in, out);
  return cudaDeviceSynchronize();
}
