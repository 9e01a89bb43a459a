// CPU backend of the course: the first line of every lab file rewritten by
// course-rewrite. Makes CUDA device code compile as host C++.
#pragma once

#include <course_cpu/check.h>
#include <course_cpu/device_functions.h>
#include <course_cpu/device_extras.h>
#include <course_cpu/launch.h>

#include <cuda_runtime.h>
#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
