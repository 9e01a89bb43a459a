// CPU backend of the course: the fiber stack pool (stack_pool.h).
#include "stack_pool.h"

#include "check_messages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace course_cpu::detail {

namespace ctx = boost::context;

namespace {
std::size_t page_bytes() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}
}  // namespace

StackPool::StackPool(std::size_t stack_bytes)
    : stack_bytes_((stack_bytes + page_bytes() - 1) / page_bytes() * page_bytes()) {}

StackPool::~StackPool() {
  for (void* m : maps_) munmap(m, stack_bytes_ + page_bytes());
}

ctx::stack_context StackPool::allocate() {
  if (free_.empty()) {
    void* m = mmap(nullptr, stack_bytes_ + page_bytes(), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {  // out of address space or memory: say so, and what to change, instead of terminating
      std::fprintf(stderr, "[course-cpu] FATAL: %s\n", stacks_exhausted_text(maps_.size(), stack_bytes_).c_str());
      std::_Exit(70);
    }
    mprotect(m, page_bytes(), PROT_NONE);  // stacks grow down: guard at the bottom
    maps_.push_back(m);
    free_.push_back(static_cast<char*>(m) + page_bytes() + stack_bytes_);
  }
  ctx::stack_context sctx;
  sctx.sp = free_.back();
  sctx.size = stack_bytes_;
  free_.pop_back();
  return sctx;
}

void StackPool::deallocate(ctx::stack_context& sctx) noexcept { free_.push_back(sctx.sp); }

bool StackPool::in_guard_page(const void* p) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (void* m : maps_) {
    const auto g = reinterpret_cast<std::uintptr_t>(m);
    if (a >= g && a < g + page_bytes()) return true;
  }
  return false;
}

}  // namespace course_cpu::detail
