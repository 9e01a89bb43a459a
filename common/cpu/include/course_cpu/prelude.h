// CPU backend of the course: the first line of every lab file rewritten by
// course-rewrite. Makes CUDA device code compile as host C++.
#pragma once

#include <course_cpu/check.h>
#include <course_cpu/device_extras.h>
#include <course_cpu/device_functions.h>
#include <course_cpu/launch.h>
#include <course_cpu/nvcc_rules.h>
#include <course_cpu/shifts.h>

#include <cuda_runtime.h>
#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// What nvcc defines for every .cu file, in both of its passes (the version is that of the runtime this backend
// models, CUDART_VERSION in cuda_runtime.h). __CUDA_ARCH__, defined only in nvcc's device pass, is given its
// device-pass value in directives inside device function bodies by the rewriter (rewrite/macros.cpp).
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
