// A kernel compiled for sm_80 machine code only (see common/CMakeLists.txt), for wrong_arch_test.cpp.
#include <cuda_runtime.h>

__global__ void noop_kernel() {}

void launch_noop() { noop_kernel<<<1, 1>>>(); }
