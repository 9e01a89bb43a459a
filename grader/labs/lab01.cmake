# Lab 01 — matAdd.
course_add_lab(01 01_matadd
  SOURCES matadd.cu
  TESTS tests/lab01_matadd_test.cpp
  CATALOGUE catalogue/lab01/missing_bounds_guard.cu
            catalogue/lab01/swapped_row_col.cu
            catalogue/lab01/grid_not_rounded_up.cu
            catalogue/lab01/one_thread_per_block.cu
            catalogue/lab01/block_too_large.cu
  VARIANTS  variants/lab01/scalar_256.cu
            variants/lab01/scalar_16x16.cu)
