// Check-mode self-test kernels: __shared__ arrays of types smaller than a word (`unsigned char` flags), whose elements
// share one 4-byte shadow word.
#include "kernels.h"

// 128 threads, one flag each. mode 0: every thread stores its flag, then reads its neighbour's; 1: thread 77 stores
// none, so thread 76 reads f[77], which no thread wrote, though the other bytes of its word were.
__global__ void byteFlags(int* out, int mode) {
  __shared__ unsigned char f[128];
  const int t = threadIdx.x;
  if (!(mode == 1 && t == 77)) f[t] = static_cast<unsigned char>(t % 7);
  __syncthreads();
  out[t] = f[(t + 1) % 128];  // @byte-read
}
cudaError_t run_byte_flags(int mode, int* out) {
  byteFlags<<<1, 128>>>(out, mode);
  return cudaDeviceSynchronize();
}
