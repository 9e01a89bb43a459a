// Bench only: grader/variants/lab01/scalar_256.cu, its launcher renamed bench_matadd_scalar_256() and its kernel
// bench_matadd_scalar_256_kernel(), so that it links into one program with the reference solution (which defines
// matadd()) and is timed in the same process. The lab file itself is unchanged. Declared in ../subjects.h.
#include <cuda_runtime.h>  // first, so that nothing in it is renamed

#define matadd bench_matadd_scalar_256
#define matadd_kernel bench_matadd_scalar_256_kernel
#include "grader/variants/lab01/scalar_256.cu"
