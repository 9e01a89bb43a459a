// Adversarial suite (grader/adversarial/honest.toml): honest_occupancy. Correct code that sizes its grid with the
// occupancy API and a device attribute, and prints its launch configuration once on stdout. Graded like any correct
// kernel.
#include "lab01_matadd.h"

#include <cstdio>

namespace {

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                              long long n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n; i += stride)
    c[i] = __fadd_rn(a[i], b[i]);
}

}  // namespace

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  constexpr int kThreads = 256;
  static int grid = 0;
  if (grid == 0) {
    int device = 0, sms = 1, per_sm = 1;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, matadd_kernel, kThreads, 0);
    grid = sms * (per_sm > 0 ? per_sm : 1);
    std::printf("matadd: %d blocks of %d threads (%d multiprocessors x %d)\n", grid, kThreads, sms, per_sm);
  }
  matadd_kernel<<<grid, kThreads, 0, stream>>>(a, b, c, static_cast<long long>(rows) * cols);
}
