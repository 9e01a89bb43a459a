// The launchers the bench times that no grader interface declares. The reference solutions, the baselines and their
// interfaces (grader/interfaces/*.h) are used as they are; what is declared here is
//   * the grader's correct variants (grader/variants/labNN/*.cu), renamed by the wrappers in variants/ so that they
//     link next to the solution that defines the same names;
//   * the lab 03 "going further" kernel (solutions/03_tiled_gemm/register_blocked_gemm.cu), which has no header;
//   * the lab 06 solution's optional variants 1-3 (reduce1_kernel ... reduce3_kernel in solutions/06_reduction/
//     reduction.cu): kernels with external linkage, launched level by level by variants/lab06_levels.cu.
// Plain C++ declarations: the bench programs are C++20 (.cpp, like the tests); the lab files are CUDA C++17.
#pragma once

#include <cuda_runtime.h>

// Lab 01 variants: same contract as matadd() (grader/interfaces/lab01_matadd.h).
void bench_matadd_scalar_256(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream);
void bench_matadd_scalar_16x16(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream);

// Lab 02 variant and the lab 03 register-blocked kernel: same contract as naive_gemm().
void bench_naive_gemm_16x16(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
void register_blocked_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);

// Lab 04 variant: same contract as padded_gemm().
void bench_padded_gemm_both_tiles(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);

// Lab 05 variant: same contract as stencil().
void bench_stencil_scalar_tile_load(const float* in, float* out, int n, int radius, cudaStream_t stream);

// Lab 06 variant: same contract as reduction().
void bench_reduction_tree_grid_stride(const float* in, int n, float* result, float* scratch, int block_size,
                                      cudaStream_t stream);

// Lab 06 solution, optional region (variants/lab06_levels.cu): variant 1 (reduce1_kernel, sequential addressing),
// 2 (reduce2_kernel, first add during the load) or 3 (reduce3_kernel, warp shuffle for the last 32), one launch per
// level of the tree, on stream 0. Same contract as reduction() otherwise.
void bench_reduce_levels(int variant, const float* in, int n, float* result, float* scratch, int block_size);
