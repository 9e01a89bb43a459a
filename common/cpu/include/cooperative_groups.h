// CPU backend of the course: the part of CUDA's <cooperative_groups.h> that course-level kernels use.
//
//   cg::thread_block block = cg::this_thread_block();   sync(), thread_rank(), size(), num_threads(),
//                                                        group_index(), thread_index(), dim_threads(), group_dim()
//   auto tile = cg::tiled_partition<N>(block);           N in 1, 2, 4, 8, 16, 32 (also of a larger tile):
//                                                        sync(), thread_rank(), size(), num_threads(),
//                                                        meta_group_rank(), meta_group_size(), shfl(), shfl_down(),
//                                                        shfl_up(), shfl_xor(), any(), all(), ballot()
//   cg::thread_group g = cg::tiled_partition(block, n);  sync(), thread_rank(), size(), num_threads()
//   cg::coalesced_group g = cg::coalesced_threads();    sync(), thread_rank(), size(), num_threads(), shfl(),
//                                                        shfl_down(), shfl_up(), any(), all(), ballot()
//   cg::sync(group);  cg::reduce(tile or coalesced group, v, cg::plus<T>()) in <cooperative_groups/reduce.h>
//   cg::memcpy_async(group, dst, src, bytes), cg::wait(group), cg::wait_prior<N>(group) in
//   <cooperative_groups/memcpy_async.h>
//
// A thread block's sync() is a __syncthreads(); a tile's operations are the warp intrinsics with the mask of the
// tile's lanes (as CUDA implements them), so check mode sees them as it sees __syncwarp() and the shuffles: a
// tile.sync() that some lanes of the tile skip is barrier divergence, and only lanes of one tile are ordered by it.
// coalesced_threads() is the lanes __activemask() finds. cg::this_grid() gives the grid's sizes and indices
// (thread_rank(), size(), num_blocks(), block_rank(), dim_threads(), ...). What needs more than one block at a time
// (grid.sync(), clusters), labeled/binary partitions and tiles of more than 32 threads fail to compile with
// the backend's "unsupported" marker (course_cpu/unsupported.h), which the grader grades as not-graded.
#pragma once

#include <course_cpu/device_functions.h>
#include <course_cpu/unsupported.h>

#include <source_location>
#include <type_traits>

namespace cooperative_groups {
namespace details {

using where = std::source_location;
using ::course_cpu::detail::WarpOp;

inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
// The lanes of the calling thread's tile of `size` threads (a power of two, at most 32) within its warp.
inline unsigned tile_mask(unsigned size) {
  if (size >= 32) return 0xffffffffu;
  return ((1u << size) - 1u) << ((block_rank() & 31u) & ~(size - 1u));
}
// The lanes of the calling thread's warp that exist (a block's last warp may be partial).
inline unsigned warp_lanes() {
  const unsigned first = block_rank() & ~31u, count = block_size() - first;
  return count >= 32 ? 0xffffffffu : (1u << count) - 1u;
}
constexpr bool valid_tile(unsigned size) { return size >= 1 && size <= 32 && (size & (size - 1)) == 0; }

}  // namespace details

// Any group: a thread block, or a tile made by tiled_partition(parent, n) (tile_ threads, 0 for the block).
class thread_group {
 public:
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const {
    if (tile_ == 0) return details::block_size();
    const unsigned base = details::block_rank() & ~(tile_ - 1u), rest = details::block_size() - base;
    return rest < tile_ ? rest : tile_;
  }
  unsigned long long thread_rank() const {
    return tile_ == 0 ? details::block_rank() : (details::block_rank() & (tile_ - 1u));
  }
  void sync(details::where at = details::where::current()) const {
    if (tile_ == 0)
      ::course_cpu::detail::syncthreads(static_cast<int>(at.line()));
    else
      ::course_cpu::detail::syncwarp(static_cast<int>(at.line()), details::tile_mask(tile_), "tile.sync()");
  }

 protected:
  explicit thread_group(unsigned tile) : tile_(tile) {}
  unsigned tile_;
  friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size);
};

// The thread block of the calling thread.
class thread_block : public thread_group {
 public:
  static void sync(details::where at = details::where::current()) {
    ::course_cpu::detail::syncthreads(static_cast<int>(at.line()));
  }
  static unsigned size() { return details::block_size(); }
  static unsigned num_threads() { return details::block_size(); }
  static unsigned thread_rank() { return details::block_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 dim_threads() { return blockDim; }
  static dim3 group_dim() { return blockDim; }

 private:
  thread_block() : thread_group(0) {}
  friend thread_block this_thread_block();
};

inline thread_block this_thread_block() { return thread_block(); }

// A tile of Size consecutive threads of the block (by thread_rank()), all in one warp.
template <unsigned int Size, class ParentT = void>
class thread_block_tile {
  static_assert(Size <= 32 || ::course_cpu::unsupported<ParentT>,
                COURSE_CPU_UNSUPPORTED("cooperative_groups tiles of more than 32 threads"));
  static_assert(details::valid_tile(Size) || Size > 32, "Size must be one of 1/2/4/8/16/32");

 public:
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
  static unsigned thread_rank() { return details::block_rank() & (Size - 1u); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }

  void sync(details::where at = details::where::current()) const {
    ::course_cpu::detail::syncwarp(static_cast<int>(at.line()), mask(), "tile.sync()");
  }
  template <class T>
  auto shfl(const T& var, int src_rank, details::where at = details::where::current()) const {
    return shuffle(details::WarpOp::shfl_idx, var, src_rank, at, "tile.shfl()");
  }
  template <class T>
  auto shfl_down(const T& var, unsigned delta, details::where at = details::where::current()) const {
    return shuffle(details::WarpOp::shfl_down, var, static_cast<int>(delta), at, "tile.shfl_down()");
  }
  template <class T>
  auto shfl_up(const T& var, unsigned delta, details::where at = details::where::current()) const {
    return shuffle(details::WarpOp::shfl_up, var, static_cast<int>(delta), at, "tile.shfl_up()");
  }
  template <class T>
  auto shfl_xor(const T& var, unsigned lane_mask, details::where at = details::where::current()) const {
    return shuffle(details::WarpOp::shfl_xor, var, static_cast<int>(lane_mask), at, "tile.shfl_xor()");
  }
  // Votes: bit i of ballot() is the tile's thread of rank i.
  unsigned ballot(int predicate, details::where at = details::where::current()) const {
    return vote(predicate, at, "tile.ballot()");
  }
  int any(int predicate, details::where at = details::where::current()) const {
    return vote(predicate, at, "tile.any()") != 0u;
  }
  int all(int predicate, details::where at = details::where::current()) const {
    return vote(predicate, at, "tile.all()") == (details::warp_lanes() & mask()) >> base();
  }

  // A tile converts to a thread_group (as in CUDA) and to a tile of the same size with another parent type.
  operator thread_group() const { return tiled_partition_group(); }
  template <class OtherParent>
  operator thread_block_tile<Size, OtherParent>() const {
    return thread_block_tile<Size, OtherParent>(meta_rank_, meta_size_);
  }

  thread_block_tile(unsigned meta_rank, unsigned meta_size) : meta_rank_(meta_rank), meta_size_(meta_size) {}

 private:
  static unsigned mask() { return details::tile_mask(Size); }
  static unsigned base() { return (details::block_rank() & 31u) & ~(Size - 1u); }
  template <class T>
  auto shuffle(details::WarpOp op, const T& var, int arg, const details::where& at, const char* what) const {
    return ::course_cpu::detail::shuffle(op, static_cast<int>(at.line()), mask(), var, arg, static_cast<int>(Size),
                                         what);
  }
  unsigned vote(int predicate, const details::where& at, const char* what) const {
    const auto ballot = ::course_cpu::detail::warp_exchange(details::WarpOp::ballot, mask(), predicate != 0, 0, 32,
                                                            static_cast<int>(at.line()), what);
    return static_cast<unsigned>(ballot >> base()) & (Size == 32 ? 0xffffffffu : (1u << Size) - 1u);
  }
  thread_group tiled_partition_group() const;

  unsigned meta_rank_, meta_size_;
};

// tiled_partition<N>(block) and tiled_partition<N>(tile of M >= N threads).
template <unsigned int Size>
thread_block_tile<Size, thread_block> tiled_partition(const thread_block&) {
  return thread_block_tile<Size, thread_block>(details::block_rank() / Size,
                                               (details::block_size() + Size - 1u) / Size);
}
template <unsigned int Size, unsigned int ParentSize, class GrandParent>
thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>> tiled_partition(
    const thread_block_tile<ParentSize, GrandParent>&) {
  static_assert(Size <= ParentSize, "a tile can only be partitioned into smaller tiles");
  return thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>>(
      (details::block_rank() & (ParentSize - 1u)) / Size, ParentSize / Size);
}

// tiled_partition(parent, n): a tile of n threads (a power of two, at most 32) as a thread_group.
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
  if (!details::valid_tile(tile_size) || (parent.tile_ != 0 && tile_size > parent.tile_))
    return thread_group(parent.tile_);  // CUDA aborts the kernel; the parent stays what it was here
  return thread_group(tile_size);
}

template <unsigned int Size, class ParentT>
thread_group thread_block_tile<Size, ParentT>::tiled_partition_group() const {
  return tiled_partition(this_thread_block(), Size);
}

// cg::sync(group): the group's barrier.
template <class Group>
void sync(const Group& group, details::where at = details::where::current()) {
  group.sync(at);
}

// The lanes of the calling thread's warp that reached coalesced_threads() together, as __activemask() finds them
// (course_cpu/device_functions.h: the lanes at the same point once none can run on). Ranks are in lane order.
class coalesced_group {
 public:
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const { return static_cast<unsigned>(__builtin_popcount(mask_)); }
  unsigned long long thread_rank() const { return rank_of(lane()); }
  unsigned meta_group_rank() const { return 0; }
  unsigned meta_group_size() const { return 1; }
  void sync(details::where at = details::where::current()) const {
    ::course_cpu::detail::syncwarp(static_cast<int>(at.line()), mask_, "group.sync()");
  }
  // shfl: the value of rank src_rank; shfl_down/shfl_up: of the rank delta above/below, or the thread's own where
  // that rank does not exist (as CUDA's coalesced_group does).
  template <class T>
  auto shfl(const T& var, unsigned src_rank, details::where at = details::where::current()) const {
    return from_lane(var, lane_of(src_rank % static_cast<unsigned>(num_threads())), at, "group.shfl()");
  }
  template <class T>
  auto shfl_down(const T& var, unsigned delta, details::where at = details::where::current()) const {
    const unsigned rank = static_cast<unsigned>(thread_rank()) + delta;
    return from_lane(var, rank < num_threads() ? lane_of(rank) : lane(), at, "group.shfl_down()");
  }
  template <class T>
  auto shfl_up(const T& var, unsigned delta, details::where at = details::where::current()) const {
    const unsigned rank = static_cast<unsigned>(thread_rank());
    return from_lane(var, delta <= rank ? lane_of(rank - delta) : lane(), at, "group.shfl_up()");
  }
  // Votes: bit i of ballot() is the group's thread of rank i.
  unsigned ballot(int predicate, details::where at = details::where::current()) const {
    const auto lanes = static_cast<unsigned>(::course_cpu::detail::warp_exchange(
        details::WarpOp::ballot, mask_, predicate != 0, 0, 32, static_cast<int>(at.line()), "group.ballot()"));
    unsigned bits = 0;
    for (unsigned l = 0; l < 32; ++l)
      if (lanes & (1u << l)) bits |= 1u << rank_of(l);
    return bits;
  }
  int any(int predicate, details::where at = details::where::current()) const { return ballot(predicate, at) != 0u; }
  int all(int predicate, details::where at = details::where::current()) const {
    const unsigned n = static_cast<unsigned>(num_threads());
    return ballot(predicate, at) == (n == 32 ? 0xffffffffu : (1u << n) - 1u);
  }
  // Not provided: a coalesced group as a thread_group (refused with the backend's marker, so graded not-graded).
  template <class T = void>
  operator thread_group() const {
    static_assert(::course_cpu::unsupported<T>,
                  COURSE_CPU_UNSUPPORTED("a cooperative_groups::coalesced_group used as a thread_group"));
    return this_thread_block();
  }

 private:
  explicit coalesced_group(unsigned mask) : mask_(mask) {}
  friend coalesced_group coalesced_threads(details::where at);
  static unsigned lane() { return details::block_rank() & 31u; }
  unsigned rank_of(unsigned l) const { return static_cast<unsigned>(__builtin_popcount(mask_ & ((1u << l) - 1u))); }
  unsigned lane_of(unsigned rank) const {  // the lane of the rank-th lane in the group
    unsigned m = mask_;
    for (unsigned r = 0; r < rank && m != 0; ++r) m &= m - 1u;
    return m != 0 ? static_cast<unsigned>(__builtin_ctz(m)) : lane();
  }
  template <class T>
  auto from_lane(const T& var, unsigned src, const details::where& at, const char* what) const {
    return ::course_cpu::detail::shuffle(details::WarpOp::shfl_idx, static_cast<int>(at.line()), mask_, var,
                                         static_cast<int>(src), 32, what);
  }
  unsigned mask_;
};

inline coalesced_group coalesced_threads(details::where at = details::where::current()) {
  return coalesced_group(::course_cpu::detail::activemask(static_cast<int>(at.line())));
}
// Not provided: partitions of a coalesced group.
template <unsigned int Size, class T = void>
thread_block_tile<Size, coalesced_group> tiled_partition(const coalesced_group&) {
  static_assert(::course_cpu::unsupported<T>,
                COURSE_CPU_UNSUPPORTED("cooperative_groups::tiled_partition() of a coalesced_group"));
  return thread_block_tile<Size, coalesced_group>(0, 1);
}
template <class T = void>
thread_group tiled_partition(const coalesced_group&, unsigned) {
  static_assert(::course_cpu::unsupported<T>,
                COURSE_CPU_UNSUPPORTED("cooperative_groups::tiled_partition() of a coalesced_group"));
  return this_thread_block();
}

// ---- the grid ------------------------------------------------------------------------------------------------------
// The whole grid, for its sizes and indices (grid-stride loops): as on a GPU without a cooperative launch,
// is_valid() is false; its barrier (sync(), barrier_arrive(), barrier_wait()) fails to compile here, since it needs
// every block resident at once and the CPU runs blocks one after another (on a GPU it needs
// cudaLaunchCooperativeKernel, which the backend does not provide either).
class grid_group {
 public:
  using arrival_token = unsigned int;
  static bool is_valid() { return false; }
  template <class T = void>
  void sync(details::where = details::where::current()) const {
    static_assert(::course_cpu::unsupported<T>,
                  COURSE_CPU_UNSUPPORTED("cooperative_groups::grid_group::sync() (a grid-wide barrier "
                                         "needs all blocks resident at once, and the CPU runs blocks one "
                                         "after another)"));
  }
  template <class T = void>
  arrival_token barrier_arrive() const {
    static_assert(::course_cpu::unsupported<T>,
                  COURSE_CPU_UNSUPPORTED("cooperative_groups::grid_group::barrier_arrive() (a grid-wide barrier)"));
    return 0;
  }
  template <class T = void>
  void barrier_wait(arrival_token&&) const {
    static_assert(::course_cpu::unsupported<T>,
                  COURSE_CPU_UNSUPPORTED("cooperative_groups::grid_group::barrier_wait() (a grid-wide barrier)"));
  }
  static unsigned long long num_blocks() {
    return static_cast<unsigned long long>(gridDim.x) * (gridDim.y * gridDim.z);
  }
  static unsigned long long num_threads() { return num_blocks() * details::block_size(); }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long block_rank() {
    return (static_cast<unsigned long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  static unsigned long long thread_rank() { return block_rank() * details::block_size() + details::block_rank(); }
  static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  static dim3 group_dim() { return dim_blocks(); }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
  static dim3 thread_index() {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }

 private:
  grid_group() = default;
  friend grid_group this_grid();
};
inline grid_group this_grid() { return grid_group(); }

// ---- what the CPU backend does not provide ----------------------------------------------------------------------
template <class T = void, class... Args>
thread_group labeled_partition(const Args&...) {
  static_assert(::course_cpu::unsupported<T>, COURSE_CPU_UNSUPPORTED("cooperative_groups::labeled_partition()"));
  return this_thread_block();
}
template <class T = void, class... Args>
thread_group binary_partition(const Args&...) {
  static_assert(::course_cpu::unsupported<T>, COURSE_CPU_UNSUPPORTED("cooperative_groups::binary_partition()"));
  return this_thread_block();
}
template <class T = void>
thread_group this_cluster() {
  static_assert(::course_cpu::unsupported<T>, COURSE_CPU_UNSUPPORTED("cooperative_groups::this_cluster()"));
  return this_thread_block();
}

}  // namespace cooperative_groups
