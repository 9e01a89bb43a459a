# Lab 06 — reduction with dynamic shared memory.
course_add_lab(06 06_reduction
  SOURCES reduction.cu
  TESTS tests/lab06_reduction_test.cpp
  BASELINES baselines/reduce_interleaved.cu
  CATALOGUE catalogue/lab06/sync_inside_if.cu
            catalogue/lab06/tree_step_without_sync.cu
            catalogue/lab06/shared_size_in_elements.cu
            catalogue/lab06/last_warp_without_syncwarp.cu
            catalogue/lab06/stride_of_one_block.cu
  VARIANTS  variants/lab06/tree_grid_stride.cu)
