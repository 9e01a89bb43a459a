# Lab 03 — tiled GEMM.
course_add_lab(03 03_tiled_gemm
  SOURCES tiled_gemm.cu
  TESTS tests/lab03_tiled_gemm_test.cpp
  BASELINES baselines/gemm_naive.cu
  CATALOGUE catalogue/lab03/missing_first_sync.cu
            catalogue/lab03/missing_second_sync.cu
            catalogue/lab03/sync_in_divergent_branch.cu
            catalogue/lab03/transposed_tile_index.cu
            catalogue/lab03/missing_zero_fill.cu
            catalogue/lab03/unguarded_tile_load.cu
            catalogue/lab03/naive_kernel_submitted.cu)
