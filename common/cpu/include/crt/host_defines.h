// CPU backend of the course: CUDA's <crt/host_defines.h>; the qualifiers are defined by the prelude.
#pragma once
#include <cuda_runtime.h>
