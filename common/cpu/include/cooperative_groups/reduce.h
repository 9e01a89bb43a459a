// CPU backend of the course: cooperative_groups::reduce over a tile, and the operators it takes.
//
//   float sum = cg::reduce(tile, v, cg::plus<float>());   // every thread of the tile (or coalesced group) gets it
//
// Over a tile, a butterfly of tile.shfl_xor() steps (log2 of the tile's size warp rendezvous), so check mode sees
// the exchanges as it sees the shuffles; with a commutative operator every thread gets the same bits. Over a
// coalesced group, a tree of shfl_down() steps by rank, and rank 0's result shuffled to every thread.
#pragma once

#include <cooperative_groups.h>

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {  // reduce(tile, v, less<T>()) is the minimum
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {  // reduce(tile, v, greater<T>()) is the maximum
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

template <unsigned int Size, class ParentT, class T, class Op>
auto reduce(const thread_block_tile<Size, ParentT>& tile, const T& value, Op op,
            details::where at = details::where::current()) {
  using V = typename ::course_cpu::detail::value_of<T>::type;
  V v = value;
  for (unsigned lane_mask = Size / 2; lane_mask > 0; lane_mask /= 2)
    v = static_cast<V>(op(v, tile.shfl_xor(v, lane_mask, at)));
  return v;
}

// Over a coalesced group of any size: a tree of shfl_down() steps by rank, then rank 0's result to every thread.
template <class T, class Op>
auto reduce(const coalesced_group& group, const T& value, Op op, details::where at = details::where::current()) {
  using V = typename ::course_cpu::detail::value_of<T>::type;
  V v = value;
  const unsigned long long n = group.num_threads(), rank = group.thread_rank();
  for (unsigned offset = 1; offset < n; offset *= 2) {
    const V other = group.shfl_down(v, offset, at);
    if (rank + offset < n) v = static_cast<V>(op(v, other));
  }
  return group.shfl(v, 0, at);
}

}  // namespace cooperative_groups
