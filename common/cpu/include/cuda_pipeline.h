// CPU backend of the course: <cuda_pipeline.h> is not provided.
#pragma once
#error "course-cpu-unsupported: <cuda_pipeline.h> (asynchronous copies into shared memory)"
