// CPU backend of the course: <cooperative_groups/scan.h> is not provided.
#pragma once
#error "course-cpu-unsupported: <cooperative_groups/scan.h> (cooperative_groups::inclusive_scan / exclusive_scan)"
