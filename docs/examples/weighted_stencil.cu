// A weighted 1D stencil, out[i] = w[0] * in[i - R] + ... + w[2R] * in[i + R] (inputs outside [0, n) count as 0),
// with its 2R + 1 weights read from one of three places: constant memory, global memory, or shared memory loaded by
// each block. An example of the chapter "Constant memory and shared-memory atomics" (docs/constant-and-atomics.md),
// timed by the bench-only case grader/bench/cases/lab05_weights.cpp; it belongs to no lab.
//
// Two ways of indexing the weights, the same for every source:
//   uniform: tap o of every output uses w[o], so the 32 lanes of a warp read the same weight at the same time;
//   lane:    tap o of output i uses w[(o + i % 32) % (2R + 1)], so the lanes of a warp read up to 32 different
//            weights at the same time (min(32, 2R + 1) of them). Another stencil, with its own CPU reference.
// The inputs are read from global memory, one output per thread, as in lab 05's baseline (stencil_global.cu): the
// kernels differ only in where the weights come from.
#include <course/cuda_check.h>

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

enum class WeightSource { constant_memory, global_memory, shared_memory };

constexpr int kWeightsMaxRadius = 128;
constexpr int kWeightsMaxTaps = 2 * kWeightsMaxRadius + 1;
constexpr int kWeightsThreads = 256;  // a multiple of 32: lane = threadIdx.x % 32 = i % 32

// ---- kernels --------------------------------------------------------------------------------------------------------

// [docs:constant_declaration]
// 1 KiB of constant memory, written from the host with cudaMemcpyToSymbol before the launches that read it.
__constant__ float c_weights[kWeightsMaxTaps];
// [/docs:constant_declaration]

// [docs:weight_read]
// Weight k, from where S says. Every lane of a warp calls this at the same time, each with its own k.
template <WeightSource S>
__device__ float weight(const float* __restrict__ global_weights, const float* shared_weights, int k) {
  if constexpr (S == WeightSource::constant_memory) {
    return c_weights[k];  // the constant cache: one broadcast per distinct address in the warp
  } else if constexpr (S == WeightSource::global_memory) {
    return global_weights[k];  // an ordinary load, through the L1 cache
  } else {
    return shared_weights[k];  // shared memory: 32 banks, one word each per request
  }
}
// [/docs:weight_read]

// [docs:weighted_stencil_kernel]
template <WeightSource S, bool kLaneIndex>
__global__ void weighted_stencil_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        const float* __restrict__ weights, int n, int radius) {
  extern __shared__ float s_weights[];  // 2 * radius + 1 floats for WeightSource::shared_memory, else none
  const int taps = 2 * radius + 1;
  if constexpr (S == WeightSource::shared_memory) {
    for (int j = threadIdx.x; j < taps; j += blockDim.x) s_weights[j] = weights[j];
    __syncthreads();  // every weight stored before any thread reads one
  }
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int lo = max(i - radius, 0);  // inputs outside [0, n) count as 0: skip them
  const int hi = min(i + radius, n - 1);
  const int o = lo - (i - radius);               // the tap of in[lo]
  int k = kLaneIndex ? (o + i % 32) % taps : o;  // the weight of that tap
  float sum = 0.0f;
  for (int j = lo; j <= hi; ++j) {
    sum += weight<S>(weights, s_weights, k) * in[j];
    k = kLaneIndex && k + 1 == taps ? 0 : k + 1;  // lane index: wraps around the 2R + 1 weights
  }
  out[i] = sum;
}
// [/docs:weighted_stencil_kernel]

// ---- launchers ------------------------------------------------------------------------------------------------------

// [docs:set_constant_weights]
// Copies taps floats from the host into c_weights (a synchronous copy: done once, before the timed launches).
void set_constant_weights(const float* host_weights, int taps) {
  if (taps < 1 || taps > kWeightsMaxTaps)
    throw std::invalid_argument("set_constant_weights: taps must be 1 to " + std::to_string(kWeightsMaxTaps));
  CUDA_CHECK(cudaMemcpyToSymbol(c_weights, host_weights, taps * sizeof(float)));
}
// [/docs:set_constant_weights]

// One launch: one thread per output, kWeightsThreads per block; the shared source also gets 2R + 1 floats of shared
// memory per block for its copy of the weights.
template <WeightSource S>
void launch_weighted_stencil(bool lane_index, const float* in, float* out, const float* weights, int n, int radius,
                             cudaStream_t stream) {
  if (n < 1 || radius < 0 || radius > kWeightsMaxRadius)
    throw std::invalid_argument("weighted_stencil: n must be at least 1 and radius 0 to " +
                                std::to_string(kWeightsMaxRadius) + ", got n = " + std::to_string(n) +
                                ", radius = " + std::to_string(radius));
  const int blocks = (n + kWeightsThreads - 1) / kWeightsThreads;
  const size_t shared_bytes =
      S == WeightSource::shared_memory ? (2 * static_cast<size_t>(radius) + 1) * sizeof(float) : 0;
  if (lane_index) {
    weighted_stencil_kernel<S, true><<<blocks, kWeightsThreads, shared_bytes, stream>>>(in, out, weights, n, radius);
  } else {
    weighted_stencil_kernel<S, false><<<blocks, kWeightsThreads, shared_bytes, stream>>>(in, out, weights, n, radius);
  }
  CUDA_CHECK(cudaGetLastError());
}

// out = the weighted stencil of in (n >= 1 floats, 0 <= radius <= kWeightsMaxRadius), the weights indexed by tap
// (lane_index false) or by tap and lane (true). `weights`: 2 * radius + 1 floats on the device; the constant-memory
// launcher reads c_weights instead, which set_constant_weights() must have filled with the same values.
void weighted_stencil_constant(bool lane_index, const float* in, float* out, const float* weights, int n, int radius,
                               cudaStream_t stream) {
  launch_weighted_stencil<WeightSource::constant_memory>(lane_index, in, out, weights, n, radius, stream);
}
void weighted_stencil_global(bool lane_index, const float* in, float* out, const float* weights, int n, int radius,
                             cudaStream_t stream) {
  launch_weighted_stencil<WeightSource::global_memory>(lane_index, in, out, weights, n, radius, stream);
}
void weighted_stencil_shared(bool lane_index, const float* in, float* out, const float* weights, int n, int radius,
                             cudaStream_t stream) {
  launch_weighted_stencil<WeightSource::shared_memory>(lane_index, in, out, weights, n, radius, stream);
}
