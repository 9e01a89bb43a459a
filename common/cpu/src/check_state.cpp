// CPU backend of the course, check mode: a worker's check state over a launch
// and its blocks - sites, shared regions, the cached cudaMalloc buffers - and
// the hooks the scheduler and the rewritten code call to keep it current.
#include "check_state.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace course_cpu::check {
constinit thread_local Hot* tl_hot = nullptr;
}  // namespace course_cpu::check

namespace course_cpu::detail {

using check::Shadow;

// Defined here, where CheckState is complete.
Worker::Worker(int worker_id) : id(worker_id), stacks(fiber_stack_bytes()) {}
Worker::~Worker() = default;

namespace {

std::mutex g_site_mutex;
int g_site_count = 0;
std::vector<const check::Site*> g_site_by_id{nullptr};  // under g_site_mutex

// COURSE_CPU_CHECK_SLOW_PATH=1 sends every access through check::record()
// (the fast path finds no cached site, arena or buffer): the self-tests
// compare both paths' findings.
bool slow_path_only() {
  static const bool only = [] {
    const char* env = std::getenv("COURSE_CPU_CHECK_SLOW_PATH");
    return env != nullptr && *env != '\0' && *env != '0';
  }();
  return only;
}

void forget_buffers(check::Hot& h) {
  for (int k = 0; k < check::kCachedBuffers; ++k) {
    h.g_begin[k] = h.g_size[k] = 0;
    h.g_shadow[k] = nullptr;
  }
}

}  // namespace

int ensure_site(CheckState& c, const check::Site* site) {
  int id = check::site_id(site);
  if (id == 0) {
    std::lock_guard lock(g_site_mutex);
    id = check::site_id(site);
    if (id == 0) {
      id = ++g_site_count;
      g_site_by_id.push_back(site);
      __atomic_store_n(&const_cast<check::Site*>(site)->id, id, __ATOMIC_RELEASE);
    }
  }
  const auto need = static_cast<std::size_t>(id) + 1;
  if (c.sites.size() < need) {
    const std::size_t n = std::max(need, c.sites.size() * 2);
    c.sites.resize(n);
    c.bank.resize(n * 64);
    c.stats.resize(n * 2);
    c.hot.sites = c.sites.data();
    c.hot.bank = c.bank.data();
    c.hot.nsites = slow_path_only() ? 0 : static_cast<std::uint32_t>(n);
  }
  c.sites[id].site = site;
  return id;
}

const check::Site* site_by_id(int id) {
  std::lock_guard lock(g_site_mutex);
  return g_site_by_id.at(static_cast<std::size_t>(id));
}

void check_begin_launch(Worker& w) {
  if (!w.check) w.check = std::make_unique<CheckState>();
  CheckState& c = *w.check;
  const auto begin = reinterpret_cast<std::uintptr_t>(w.arena.get());
  if (c.arena.begin != begin || c.arena.words.size() < w.arena_capacity / 4 + 1) {
    c.arena.words.assign(w.arena_capacity / 4 + 1, Shadow{});
  }
  c.arena.begin = begin;
  c.arena.end = begin + w.arena_bytes;
  c.arena.dynamic = true;
  check::Hot& h = c.hot;
  h.arena_begin = begin;
  h.arena_end = c.arena.end;
  h.arena_span = slow_path_only() ? 0 : std::max<std::size_t>(w.arena_capacity, 1);
  h.arena_words = c.arena.words.data();
  h.alloc_gen = 0;
  h.stack_bytes = slow_path_only() ? 0 : fiber_stack_bytes();
  forget_buffers(h);
  w.hot = &h;
}

void check_begin_block(Worker& w) {
  check::Hot& h = w.check->hot;
  ++h.epoch;
  h.block_first_epoch = h.epoch;
  check_global_begin_block(w);
  if (w.arena_bytes != 0) std::memset(w.arena.get(), kSharedFill, w.arena_bytes);
}

Region* static_region(CheckState& c, const void* base, std::size_t bytes) {
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  // The array's own region, or the region of the __shared__ struct it is a member array of (`st.bins`).
  const auto holds = [&](const Region& r) { return r.begin == b || (b > r.begin && b + bytes <= r.end); };
  if (c.last_static && holds(*c.last_static)) return c.last_static;
  for (auto& r : c.statics)
    if (holds(*r)) return c.last_static = r.get();
  auto r = std::make_unique<Region>();
  r->begin = b;
  r->end = b + bytes;
  r->words.assign((bytes + 3) / 4, Shadow{});
  c.statics.push_back(std::move(r));
  return c.last_static = c.statics.back().get();
}

namespace {
// A static array the running block has declared (or one never declared: an object the rewriter does not declare).
// Another kernel's arrays stay listed, but are not this block's shared memory: a pointer run past the end of one of
// this block's arrays is not into them.
bool of_this_block(const CheckState& c, const Region& r) {
  return r.filled_epoch == 0 || r.filled_epoch == c.hot.block_first_epoch;
}
}  // namespace

Region* shared_region_of(Worker& w, std::uintptr_t p) {
  CheckState& c = *w.check;
  if (p >= c.arena.begin && p < c.arena.begin + std::max<std::size_t>(w.arena_capacity, 1)) return &c.arena;
  for (auto& r : c.statics)
    if (p >= r->begin && p < r->end && of_this_block(c, *r)) return r.get();
  return nullptr;
}

Region* static_region_ending_at(CheckState& c, std::uintptr_t p) {
  for (auto& r : c.statics)
    if (r->end == p && of_this_block(c, *r)) return r.get();
  return nullptr;
}

bool global_allocation_of(CheckState& c, const void* p, Allocation* out) {
  if (slow_path_only()) return find_allocation(p, out);
  const std::uint64_t gen = allocation_generation();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  check::Hot& h = c.hot;
  if (h.alloc_gen == gen) {
    for (int k = 0; k < check::kCachedBuffers; ++k)
      if (h.g_size[k] != 0 && a >= h.g_begin[k] && a < h.g_begin[k] + h.g_size[k]) {
        *out = Allocation{h.g_begin[k], h.g_size[k], false, h.g_shadow[k]};
        return true;
      }
  } else {
    forget_buffers(h);
    h.alloc_gen = gen;
  }
  if (!find_allocation(p, out)) return false;
  const unsigned k = c.alloc_next++ % check::kCachedBuffers;
  h.g_begin[k] = out->begin;
  h.g_size[k] = out->size;
  h.g_shadow[k] = out->shadow;
  return true;
}

}  // namespace course_cpu::detail

namespace course_cpu::check {

using namespace course_cpu::detail;

void* scratch(std::size_t bytes) {
  thread_local std::vector<unsigned char> buffer;
  if (buffer.size() < bytes) buffer.resize(bytes);
  std::memset(buffer.data(), 0, bytes);
  return buffer.data();
}

void declare_shared_region(const void* base, std::size_t bytes) {
  Worker* w = tl_worker;
  if (w == nullptr || tl_slot == nullptr || !w->checked) return;
  CheckState& c = *w->check;
  Region* r = static_region(c, base, bytes);
  if (r->filled_epoch != c.hot.block_first_epoch) {  // the block's first thread to get here
    r->filled_epoch = c.hot.block_first_epoch;
    std::memset(const_cast<void*>(base), kSharedFill, r->end - r->begin);
  }
}

}  // namespace course_cpu::check
