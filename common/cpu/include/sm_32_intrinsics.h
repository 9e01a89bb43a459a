// CPU backend of the course: CUDA's <sm_32_intrinsics.h>. The device functions come with every rewritten file (the
// prelude: course_cpu/device_functions.h and course_cpu/device_extras.h); this header only forwards.
#pragma once
#include <cuda_runtime.h>
