# Lab 05 — 1D stencil with halos.
course_add_lab(05 05_stencil
  SOURCES stencil.cu
  TESTS tests/lab05_stencil_test.cpp
  BASELINES baselines/stencil_global.cu
  CATALOGUE catalogue/lab05/halo_not_loaded.cu
            catalogue/lab05/halo_off_by_one.cu
            catalogue/lab05/missing_sync_after_load.cu
            catalogue/lab05/no_boundary_guard.cu
            catalogue/lab05/shared_size_without_halo.cu
            catalogue/lab05/one_output_per_thread.cu
  VARIANTS  variants/lab05/scalar_tile_load.cu)
