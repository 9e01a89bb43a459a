// CPU backend of the course: <cuda_fp16.h> is not provided.
#pragma once
#error "course-cpu-unsupported: <cuda_fp16.h> (half-precision types and intrinsics)"
