// Bench only: grader/variants/lab06/tree_grid_stride.cu, its launcher renamed bench_reduction_tree_grid_stride() and
// its kernel bench_reduction_tree_grid_stride_kernel(), so that it links into one program with the reference solution
// (which defines reduction()) and is timed in the same process. The lab file itself is unchanged. Declared in
// ../subjects.h.
#include <cuda_runtime.h>  // first, so that nothing in it is renamed

#define reduction bench_reduction_tree_grid_stride
#define reduction_kernel bench_reduction_tree_grid_stride_kernel
#include "grader/variants/lab06/tree_grid_stride.cu"
