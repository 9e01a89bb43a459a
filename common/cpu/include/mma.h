// CPU backend of the course: <mma.h> is not provided.
#pragma once
#error "course-cpu-unsupported: <mma.h> (warp matrix functions, nvcuda::wmma)"
