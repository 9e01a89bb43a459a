// CPU backend of the course: cooperative_groups::memcpy_async, wait and wait_prior (<cooperative_groups/memcpy_async.h>).
//
//   cg::memcpy_async(group, dst, src, bytes);
//   cg::memcpy_async(group, dst, dst_count, src, src_count);  min(dst_count, src_count) elements of *dst's type
//   cg::wait_prior<N>(group);  cg::wait(group);
//
// As on a GPU, every thread of the group (a thread block, a tile or a coalesced group) makes the same call, and the
// threads share the copy: where the destination is shared memory and the source is not, its aligned middle goes as
// asynchronous copies of 16, 8 or 4 bytes (the widest both addresses allow), in turn by rank, and the ends are copied
// at once, byte by byte in turn by rank; anything else is copied at once. Each call then commits the thread's copies
// as one group (__pipeline_commit()). wait_prior<N> waits until at most the N most recent of this thread's groups are
// in flight (__pipeline_wait_prior(N)) and then synchronizes the group; wait waits for all of them. So the
// asynchronous part behaves, and is checked, as <cuda_pipeline_primitives.h> says: read before the wait, it holds
// the old contents, and check mode reports the read as async-copy. What is copied at once is not checked.
#pragma once

#include <course_cpu/copy_args.h>

#include <cooperative_groups.h>
#include <cuda_pipeline_primitives.h>

#include <algorithm>
#include <cstddef>
#include <source_location>
#include <type_traits>
#include <utility>

namespace cooperative_groups {
namespace details {

template <class Group>
void group_memcpy(const Group& group, void* dst, const void* src, std::size_t bytes, where at) {
  ::course_cpu::detail::group_async_copy(
      ::course_cpu::detail::group_copy_site(::course_cpu::detail::CopyApi::group, at.file_name(), at.line()),
      static_cast<unsigned>(group.thread_rank()), static_cast<unsigned>(group.num_threads()), dst, src, bytes);
  ::course_cpu::detail::async_commit();
}

}  // namespace details

template <class Group, class Dst, class Src, class Size,
          std::enable_if_t<::course_cpu::detail::is_copy_count<Size>, int> = 0>
void memcpy_async(const Group& group, Dst&& dst, Src&& src, const Size& bytes,
                  details::where at = details::where::current()) {
  static_assert(::course_cpu::detail::same_copy_elements<Dst, Src>,
                "cooperative_groups::memcpy_async(group, T* dst, const T* src, bytes): one element type T");
  details::group_memcpy(group, ::course_cpu::detail::copy_pointer(dst), ::course_cpu::detail::copy_pointer(src),
                        static_cast<std::size_t>(bytes), at);
}

template <class Group, class Dst, class DstCount, class Src, class SrcCount,
          std::enable_if_t<
              ::course_cpu::detail::is_copy_count<DstCount>&& ::course_cpu::detail::is_copy_count<SrcCount>, int> = 0>
void memcpy_async(const Group& group, Dst&& dst, const DstCount& dst_count, Src&& src, const SrcCount& src_count,
                  details::where at = details::where::current()) {
  static_assert(::course_cpu::detail::same_copy_elements<Dst, Src>,
                "cooperative_groups::memcpy_async(group, T* dst, dst_count, const T* src, src_count): one element "
                "type T");
  const std::size_t count = std::min(static_cast<std::size_t>(dst_count), static_cast<std::size_t>(src_count));
  details::group_memcpy(group, ::course_cpu::detail::copy_pointer(dst), ::course_cpu::detail::copy_pointer(src),
                        count * sizeof(::course_cpu::detail::copy_pointee_t<Dst>), at);
}

template <unsigned int Stage, class Group>
void wait_prior(const Group& group, details::where at = details::where::current()) {
  ::course_cpu::detail::async_wait_prior(Stage);
  group.sync(at);
}

template <class Group>
void wait(const Group& group, details::where at = details::where::current()) {
  ::course_cpu::detail::async_wait_prior(0);
  group.sync(at);
}

}  // namespace cooperative_groups
