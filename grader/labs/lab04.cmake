# Lab 04 — padded GEMM.
course_add_lab(04 04_padded_gemm
  SOURCES padded_gemm.cu
  TESTS tests/lab04_padded_gemm_test.cpp
  BASELINES baselines/gemm_unpadded.cu
  CATALOGUE catalogue/lab04/unpadded_layout_submitted.cu
            catalogue/lab04/padded_wrong_dimension.cu
            catalogue/lab04/missing_first_sync.cu
            catalogue/lab04/missing_second_sync.cu
            catalogue/lab04/sync_in_divergent_branch.cu
            catalogue/lab04/missing_bounds_guard.cu
  VARIANTS  variants/lab04/pad_both_tiles.cu)
