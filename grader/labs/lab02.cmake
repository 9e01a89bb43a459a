# Lab 02 — naive GEMM.
course_add_lab(02 02_naive_gemm
  SOURCES naive_gemm.cu
  TESTS tests/lab02_naive_gemm_test.cpp
  BASELINES baselines/gemm_uncoalesced.cu
  CATALOGUE catalogue/lab02/swapped_row_col.cu
            catalogue/lab02/missing_bounds_guard.cu
            catalogue/lab02/grid_not_rounded_up.cu
            catalogue/lab02/wrong_b_stride.cu
            catalogue/lab02/accumulates_into_output.cu
            catalogue/lab02/uncoalesced_mapping.cu
  VARIANTS  variants/lab02/naive_16x16.cu)
