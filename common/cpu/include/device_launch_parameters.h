// CPU backend of the course: forwards to the CUDA runtime shim.
#pragma once
#include <cuda_runtime.h>
