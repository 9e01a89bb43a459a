// CPU backend of the course: CUDA's asynchronous-copy primitives (<cuda_pipeline_primitives.h>), which lab 07 uses.
//
// On a GPU, __pipeline_memcpy_async(dst, src, size, zfill) starts a copy of `size` bytes (4, 8 or 16) from global
// memory into shared memory and returns at once; __pipeline_commit() closes the thread's batch of copies started so
// far into a group; __pipeline_wait_prior(n) waits until at most the n most recent committed groups of this thread
// are still in flight. Only then may the thread read what its copies wrote, and other threads only after a barrier.
//
// Here (src/async_copy.cpp) a copy is recorded when it starts and performed when a wait covers it, so a kernel that
// reads too early reads stale shared memory, as it may on a GPU. Check mode also reports such a read (and a write
// into memory a copy is still filling) as `async-copy`, and a copy into memory other threads read in the same
// barrier interval as a race. Both modes fail the launch on a misaligned copy (cudaErrorMisalignedAddress) or a size
// other than 4, 8 or 16 (a GPU traps).
#pragma once

#include <course_cpu/check_access.h>
#include <course_cpu/unsupported.h>

#include <cstddef>

namespace course_cpu::detail {
void async_copy(const check::Site* site, void* dst_shared, const void* src_global, std::size_t size_and_align,
                std::size_t zfill = 0);
void async_commit();
void async_wait_prior(std::size_t prior);
// cooperative_groups::memcpy_async and cuda::memcpy_async (<cooperative_groups/memcpy_async.h>, <cuda/pipeline>): the
// site messages name for the call at `file`:`line` of `api`, and the share of thread `rank` of a group of `size`
// threads in a copy of `bytes` bytes.
enum class CopyApi;
const check::Site* group_copy_site(CopyApi api, const char* file, unsigned line);
void group_async_copy(const check::Site* site, unsigned rank, unsigned size, void* dst, const void* src,
                      std::size_t bytes);
}  // namespace course_cpu::detail

// One site per call in the source (a lambda's static): messages name the copy by its line.
#define __pipeline_memcpy_async(...)                                                                           \
  ::course_cpu::detail::async_copy(                                                                            \
      []() -> const ::course_cpu::check::Site* {                                                               \
        static ::course_cpu::check::Site site{"__pipeline_memcpy_async's destination", __FILE__, __LINE__, 0}; \
        return &site;                                                                                          \
      }(),                                                                                                     \
      __VA_ARGS__)
#define __pipeline_commit() ::course_cpu::detail::async_commit()
#define __pipeline_wait_prior(prior) ::course_cpu::detail::async_wait_prior(prior)

// Copies that complete on an mbarrier are not provided.
template <class Barrier>
void __pipeline_arrive_on(Barrier*) {
  static_assert(course_cpu::unsupported<Barrier>,
                COURSE_CPU_UNSUPPORTED("__pipeline_arrive_on (asynchronous copies completing on an mbarrier)"));
}
