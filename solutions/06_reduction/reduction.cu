// Lab 06 — reduction: the sum of n floats, with shared memory sized at launch.
//
// What you practise: declaring shared memory as `extern __shared__` and giving its size in bytes as the third
// launch parameter, so one kernel serves every block size; reducing a block's values to one through shared memory
// with a barrier between the steps (never inside a branch that only some threads take); letting each thread first
// add many inputs in a grid-stride loop, so the block tree runs once per thread instead of once per input; and
// finishing with a second, one-block launch that turns the blocks' partial sums into a single scalar.
// Your part is in the TODO regions; the handout is labs/06_reduction/README.md. Test: ctest --test-dir build -R lab06
#include "lab06_reduction.h"

// ---- kernels --------------------------------------------------------------------------------------------------------

// The launcher runs this kernel twice: pass 1 with many blocks over in[0 .. n), each block storing its sum to
// out[blockIdx.x]; pass 2 with one block over those partial sums, storing the total to out[0]. The grid-stride loop
// lets any number of blocks cover any n.
// [docs:reduction_kernel]
__global__ void reduction_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];  // its size in bytes is the launch's third parameter: see reduction() below

  // [docs:reduction_grid_stride]
  // TODO(lab06): add up this thread's share of in[]: elements i, i + stride, i + 2 * stride, ... where i is the
  // thread's index in the grid and stride the number of threads in the grid (about 8 lines; 17 with float4 loads)
  // in is 16-byte aligned, so in[4j .. 4j + 3] is one float4: each thread reads 16 bytes per load instruction, and
  // two independent float4 loads per iteration keep 32 bytes per thread in flight.
  const int stride = gridDim.x * blockDim.x;
  const int n4 = n / 4;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f), t = s;  // eight independent sums
  for (; j + stride < n4; j += 2 * stride) {
    const float4 v = in4[j], w = in4[j + stride];
    s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
    t.x += w.x, t.y += w.y, t.z += w.z, t.w += w.w;
  }
  if (j < n4) {
    const float4 v = in4[j];
    s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
  }
  for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) s.x += in[i];  // n % 4 tail
  float sum = ((s.x + t.x) + (s.y + t.y)) + ((s.z + t.z) + (s.w + t.w));
  // END TODO
  // [/docs:reduction_grid_stride]

  // [docs:reduction_block]
  // TODO(lab06): reduce the block's sums to one through partial[] and let one thread store it to out[blockIdx.x]
  // (about 12 lines)
  // Within a warp, shuffles add the 32 values with no shared memory and no __syncthreads(): after the loop lane 0
  // holds the warp's sum. partial[] then holds one value per warp (blockDim.x / 32 floats), and warp 0 adds those.
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) partial[warp] = sum;
  __syncthreads();  // every warp's sum is stored before warp 0 reads them
  if (warp == 0) {
    sum = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) out[blockIdx.x] = sum;
  }
  // END TODO
  // [/docs:reduction_block]
}
// [/docs:reduction_kernel]

// TODO(lab06, going further): the variants between the baseline and the kernel above, to time them (optional)
// The cuda-samples progression (reduce0 ... reduce6), as block reductions that store one partial sum per block of
// blockDim.x inputs (variant 2: per 2 * blockDim.x), run level by level like the baseline.
// Variant 0, the baseline (grader/labs/06_reduction/reduce_interleaved.cu): interleaved addressing. At step s the
// threads with tid % (2 * s) == 0 add partial[tid + s]: the active threads are scattered over every warp, so every
// warp stays busy (divergent) until the last steps, and the modulo is slow.
// [docs:reduce_variants]
// Variant 1 — sequential addressing. What changed: at step s the threads tid < s add partial[tid + s], s halving
// from blockDim.x / 2. Why faster: the active threads are contiguous, so whole warps retire as s shrinks (no
// divergence until s < 32), and a warp reads 32 consecutive floats (no bank conflicts). Needs blockDim.x a power of 2.
__global__ void reduce1_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];  // blockDim.x floats
  const unsigned tid = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  // [docs:reduce1_tree]
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();  // outside the if: every thread reaches every barrier
  }
  // [/docs:reduce1_tree]
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// Variant 2 — first add during the load. What changed: each block covers 2 * blockDim.x inputs and every thread adds
// two of them while loading. Why faster: in variant 1 half the threads are idle from the first step; now every
// thread does an add, and half as many blocks (and tree steps per input) are needed.
__global__ void reduce2_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];  // blockDim.x floats
  const unsigned tid = threadIdx.x;
  // [docs:reduce2_load]
  const int i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  if (i + static_cast<int>(blockDim.x) < n) v += in[i + blockDim.x];
  partial[tid] = v;
  // [/docs:reduce2_load]
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// Variant 3 — warp shuffle for the last 32. What changed: the tree in shared memory stops at 32 values; warp 0
// finishes them with __shfl_down_sync. Why faster: the last five steps need no shared memory and no block-wide
// barrier (a shuffle exchanges registers within a warp, which the warp does together).
__global__ void reduce3_kernel(const float* __restrict__ in, int n, float* __restrict__ out) {
  extern __shared__ float partial[];  // blockDim.x floats
  const unsigned tid = threadIdx.x;
  const int i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  if (i + static_cast<int>(blockDim.x) < n) v += in[i + blockDim.x];
  partial[tid] = v;
  __syncthreads();
  // [docs:reduce3_warp_shuffle]
  for (unsigned s = blockDim.x / 2; s >= 32; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    v = partial[tid];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid == 0) out[blockIdx.x] = v;
  }
  // [/docs:reduce3_warp_shuffle]
}
// Variant 4 — grid-stride loop, then shuffles and one shared value per warp: reduction_kernel above. What changed:
// a grid of one wave of blocks, each thread first adding about n / (blocks * blockDim.x) inputs in registers, with
// two float4 loads (32 bytes) in flight per thread. Why faster: the memory system sees long streams of independent
// loads and the block tree runs once per thread rather than once per blockDim.x inputs; only two launches whatever n
// is.
// [/docs:reduce_variants]
// END TODO

// ---- launcher -------------------------------------------------------------------------------------------------------

// [docs:reduction_launch]
void reduction(const float* in, int n, float* result, float* scratch, int block_size, cudaStream_t stream) {
  // TODO(lab06): choose the number of blocks of pass 1 and the bytes of partial[] each block gets (about 7 lines)
  // One wave: as many blocks as the GPU holds at once (more only adds blocks that wait for a free SM), and no more
  // blocks than there are block-sized pieces of input.
  int device = 0, sms = 1, threads_per_sm = 2048;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  const int wave = sms * (threads_per_sm / block_size);
  const int pieces = (n + block_size - 1) / block_size;
  const int blocks = pieces < wave ? pieces : wave;
  const size_t shared_bytes = (block_size / 32) * sizeof(float);  // one float per warp
  // END TODO
  // Pass 1: block b stores the sum of its share of in[] to scratch[b].
  reduction_kernel<<<blocks, block_size, shared_bytes, stream>>>(in, n, scratch);
  // Pass 2: one block adds the blocks' sums and stores the total to *result.
  reduction_kernel<<<1, block_size, shared_bytes, stream>>>(scratch, blocks, result);
}
// [/docs:reduction_launch]
