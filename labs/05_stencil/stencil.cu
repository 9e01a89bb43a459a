// Lab 05 — 1D stencil with halos: out[i] = in[i - R] + ... + in[i] + ... + in[i + R], R = radius.
//
// What you practise: staging a tile of the input and its halos (the R inputs on each side that the tile's outputs
// also need) in shared memory, loaded by all the threads of a block together; a barrier between loading the tile and
// reading it; an explicit boundary policy (inputs outside [0, n) count as 0) that holds in the first and last block,
// when n is smaller than a block and when n is smaller than R; and giving each thread several outputs, so that a
// tile loaded once is reused enough to beat what the L1 cache already does for a plain global-memory stencil.
// Your part is in the TODO regions; the handout is labs/05_stencil/README.md. Test: ctest --test-dir build -R lab05
#include "lab05_stencil.h"

// ---- configuration --------------------------------------------------------------------------------------------------

constexpr int kThreads = 256;                        // threads per block
constexpr int kOutputsPerThread = 4;                 // outputs each thread computes
constexpr int kTile = kThreads * kOutputsPerThread;  // outputs per block: 1024

// ---- kernels --------------------------------------------------------------------------------------------------------

// Block b computes the kTile outputs out[first .. first + kTile), first = b * kTile. They need the inputs
// in[first - radius .. first + kTile + radius): the tile and a halo of `radius` on each side. tile[j] holds
// in[first - radius + j], so output first + m sums tile[m .. m + 2 * radius].
// Thread t computes outputs m = t, t + kThreads, t + 2 * kThreads, t + 3 * kThreads of the tile: at every step the
// 32 threads of a warp read 32 consecutive floats of tile[] (32 different banks: no conflict) and store 32
// consecutive outputs (coalesced).
// [docs:stencil_kernel]
__global__ void stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius) {
  extern __shared__ float tile[];        // kTile + 2 * radius floats: the size is given at launch
  const int first = blockIdx.x * kTile;  // this block's first output

  // [docs:stencil_load]
  // TODO(lab05): load in[first - radius .. first + kTile + radius) into tile[], every thread of the block taking
  // every blockDim.x-th element, and store 0 for inputs outside [0, n) (about 5 lines; 15 with float4 loads)
  // (nothing yet: tile[] is never written)
  // END TODO
  // TODO(lab05): wait until the whole tile is loaded: threads read elements that other threads stored (1 line)
  // (nothing yet)
  // END TODO
  // [/docs:stencil_load]

  // [docs:stencil_compute]
  // TODO(lab05): compute this thread's kOutputsPerThread outputs from tile[] and store those below n (about 9 lines)
  const int i = first + threadIdx.x;  // replace: this stores 0 into one output per thread
  if (i < n) out[i] = 0.0f;
  // END TODO
  // [/docs:stencil_compute]
}
// [/docs:stencil_kernel]

// ---- launcher -------------------------------------------------------------------------------------------------------

// [docs:stencil_launch]
void stencil(const float* in, float* out, int n, int radius, cudaStream_t stream) {
  // TODO(lab05): one block per kTile outputs, rounded up, and the tile's size in bytes (2 lines)
  const int blocks = 1;           // replace: enough blocks of kTile outputs to cover n, rounded up
  const size_t shared_bytes = 0;  // replace: the bytes of tile[] (tile and both halos)
  // END TODO
  stencil_kernel<<<blocks, kThreads, shared_bytes, stream>>>(in, out, n, radius);
}
// [/docs:stencil_launch]
