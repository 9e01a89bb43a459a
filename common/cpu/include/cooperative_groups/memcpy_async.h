// CPU backend of the course: <cooperative_groups/memcpy_async.h> is not provided.
#pragma once
#error "course-cpu-unsupported: <cooperative_groups/memcpy_async.h> (asynchronous copies into shared memory)"
