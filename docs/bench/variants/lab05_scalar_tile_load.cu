// Bench only: grader/variants/lab05/scalar_tile_load.cu, its launcher renamed bench_stencil_scalar_tile_load() and its
// kernel bench_stencil_scalar_tile_load_kernel(), so that it links into one program with the reference solution (which
// defines stencil()) and is timed in the same process. The lab file itself is unchanged. Declared in ../subjects.h.
#include <cuda_runtime.h>  // first, so that nothing in it is renamed

#define stencil bench_stencil_scalar_tile_load
#define stencil_kernel bench_stencil_scalar_tile_load_kernel
#include "grader/variants/lab05/scalar_tile_load.cu"
