// Bench only: grader/variants/lab04/pad_both_tiles.cu, its launcher renamed bench_padded_gemm_both_tiles() and its
// kernel bench_padded_gemm_both_tiles_kernel(), so that it links into one program with the reference solution (which
// defines padded_gemm()) and is timed in the same process. The lab file itself is unchanged. Declared in ../subjects.h.
#include <cuda_runtime.h>  // first, so that nothing in it is renamed

#define padded_gemm bench_padded_gemm_both_tiles
#define padded_gemm_kernel bench_padded_gemm_both_tiles_kernel
#include "grader/variants/lab04/pad_both_tiles.cu"
