// CPU backend of the course: CUDA's <driver_types.h>; its declarations are those of <cuda_runtime.h>.
#pragma once
#include <cuda_runtime.h>
