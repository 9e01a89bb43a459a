// CPU backend of the course: CUDA's <vector_functions.h>: make_float2 and the others are in <vector_types.h>.
#pragma once
#include <vector_types.h>
