// Bench only: grader/variants/lab02/naive_16x16.cu, its launcher renamed bench_naive_gemm_16x16() and its kernel
// bench_naive_gemm_16x16_kernel(), so that it links into one program with the reference solution (which defines
// naive_gemm()) and is timed in the same process. The lab file itself is unchanged. Declared in ../subjects.h.
#include <cuda_runtime.h>  // first, so that nothing in it is renamed

#define naive_gemm bench_naive_gemm_16x16
#define naive_gemm_kernel bench_naive_gemm_16x16_kernel
#include "grader/variants/lab02/naive_16x16.cu"
