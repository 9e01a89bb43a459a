// A histogram of n values into `bins` bins (hist[b] = how many values equal b; every value below bins), made two
// ways. An example of the chapter "Constant memory and shared-memory atomics" (docs/constant-and-atomics.md), timed
// by the bench-only case grader/bench/cases/lab06_histogram.cpp; it belongs to no lab.
//
//   global:  every value is one atomicAdd on hist[] in global memory (done in the L2 cache);
//   shared:  each block counts its values in a private histogram in shared memory with shared-memory atomics, then
//            adds each of its non-zero bins to hist[] with one global atomicAdd (the privatised histogram).
//
// Both run a grid-stride loop over the values with as many blocks as fit on the GPU at once (histogram_grid()), so
// the shared kernel's merge costs at most blocks x bins global atomics, whatever n is.
#include <course/cuda_check.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

constexpr int kHistogramThreads = 256;
constexpr int kHistogramMaxBins = 12288;  // 48 KiB of unsigned counters: the shared memory a block gets without opt-in

// ---- kernels --------------------------------------------------------------------------------------------------------

// [docs:histogram_global_kernel]
__global__ void histogram_global_kernel(const unsigned* __restrict__ values, int n, unsigned* __restrict__ hist) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&hist[values[i]], 1u);  // one global atomic per value
  }
}
// [/docs:histogram_global_kernel]

// [docs:histogram_shared_kernel]
__global__ void histogram_shared_kernel(const unsigned* __restrict__ values, int n, unsigned* __restrict__ hist,
                                        int bins) {
  extern __shared__ unsigned block_hist[];  // bins counters, private to this block
  for (int b = threadIdx.x; b < bins; b += blockDim.x) block_hist[b] = 0;
  __syncthreads();  // all counters zero before any thread counts

  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&block_hist[values[i]], 1u);  // one shared-memory atomic per value
  }
  __syncthreads();  // all of this block's values counted before the merge reads the counters

  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    const unsigned count = block_hist[b];
    if (count != 0) atomicAdd(&hist[b], count);  // one global atomic per non-zero bin per block
  }
}
// [/docs:histogram_shared_kernel]

// ---- launchers ------------------------------------------------------------------------------------------------------

namespace {

void require_bins(int bins) {
  if (bins < 1 || bins > kHistogramMaxBins)
    throw std::invalid_argument("histogram: bins must be 1 to " + std::to_string(kHistogramMaxBins) + ", got " +
                                std::to_string(bins));
}

}  // namespace

// [docs:histogram_grid]
// The blocks of one launch: as many as are resident on the GPU at once (for the shared kernel, with its bins
// counters), at most one per kHistogramThreads values. Computed once per size, outside the timed launches.
int histogram_grid(bool shared, int n, int bins) {
  require_bins(bins);
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (shared) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histogram_shared_kernel, kHistogramThreads,
                                                             bins * sizeof(unsigned)));
  } else {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histogram_global_kernel, kHistogramThreads, 0));
  }
  const long long needed = (static_cast<long long>(n) + kHistogramThreads - 1) / kHistogramThreads;
  return static_cast<int>(std::max(1LL, std::min(needed, static_cast<long long>(sms) * std::max(per_sm, 1))));
}
// [/docs:histogram_grid]

// hist = the histogram of values[0 .. n) (n >= 1, every value below bins), with `blocks` blocks (histogram_grid()).
// hist is zeroed first, on the same stream: the launch is timed with it.
void histogram(bool shared, const unsigned* values, int n, unsigned* hist, int bins, int blocks, cudaStream_t stream) {
  require_bins(bins);
  if (n < 1 || blocks < 1)
    throw std::invalid_argument("histogram: n and blocks must be at least 1, got n = " + std::to_string(n) +
                                ", blocks = " + std::to_string(blocks));
  CUDA_CHECK(cudaMemsetAsync(hist, 0, bins * sizeof(unsigned), stream));
  if (shared) {
    histogram_shared_kernel<<<blocks, kHistogramThreads, bins * sizeof(unsigned), stream>>>(values, n, hist, bins);
  } else {
    histogram_global_kernel<<<blocks, kHistogramThreads, 0, stream>>>(values, n, hist);
  }
  CUDA_CHECK(cudaGetLastError());
}
