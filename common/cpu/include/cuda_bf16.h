// CPU backend of the course: <cuda_bf16.h> is not provided.
#pragma once
#error "course-cpu-unsupported: <cuda_bf16.h> (bfloat16 types and intrinsics)"
