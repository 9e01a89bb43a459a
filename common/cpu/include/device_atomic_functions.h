// CPU backend of the course: CUDA's <device_atomic_functions.h>. The device functions come with every rewritten file (the
// prelude: course_cpu/device_functions.h and course_cpu/device_extras.h); this header only forwards.
#pragma once
#include <cuda_runtime.h>
