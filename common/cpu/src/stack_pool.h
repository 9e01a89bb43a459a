// CPU backend of the course: the stacks of the fibers that run CUDA threads.
// Fiber stacks are mmap'ed once per worker, with a guard page below each, and
// reused for every thread of every block the worker runs.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstddef>
#include <vector>

namespace course_cpu::detail {

class StackPool {
 public:
  explicit StackPool(std::size_t stack_bytes);
  ~StackPool();
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sctx) noexcept;
  // The stack whose guard page contains p, if any (for the fault handler).
  bool in_guard_page(const void* p) const;

 private:
  std::size_t stack_bytes_;  // usable size, without the guard page
  std::vector<void*> free_;  // stack tops ready for reuse
  std::vector<void*> maps_;  // every mapping (guard page first)
};

// The allocator handed to boost::context::fiber (copied into each fiber).
struct PooledStack {
  StackPool* pool;
  boost::context::stack_context allocate() { return pool->allocate(); }
  void deallocate(boost::context::stack_context& sctx) noexcept { pool->deallocate(sctx); }
};

}  // namespace course_cpu::detail
