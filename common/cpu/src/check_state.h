// CPU backend of the course, check mode: what a worker keeps about shared
// memory, sites and buffers (check_state.cpp), shared by the slow path
// (check_record.cpp) and the bank-conflict statistics (check_banks.cpp).
//
// Shared memory gets one shadow record per 4-byte word, per worker. Time in a
// block is cut into barrier intervals ("epochs": a new one starts at every
// released __syncthreads() and at every block start; numbers only grow, so
// old records never need clearing).
#pragma once

#include "scheduler.h"

#include <course_cpu/check.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace course_cpu::detail {

struct Region {
  std::uintptr_t begin = 0, end = 0;
  bool dynamic = false;
  std::uint32_t filled_epoch = 0;  // block (its first epoch) whose start filled it
  std::vector<check::Shadow> words;
};

struct CheckState {
  check::Hot hot;                                // what the inlined fast path (check_fast_path.h) reads
  std::vector<std::unique_ptr<Region>> statics;  // static __shared__ arrays seen on this worker
  Region* last_static = nullptr;
  Region arena;                        // extern __shared__
  std::vector<check::SiteSlot> sites;  // by Site::id
  std::vector<check::BankSlot> bank;   // by (id * 2 + store) * 32 + warp
  std::vector<std::uint32_t> active;   // bank slots opened in this epoch
  std::vector<BankStats> stats;        // by id * 2 + store, this launch
  unsigned alloc_next = 0;
};

// Shared memory starts every block filled with this byte (float NaN, int -1),
// so reads of uninitialized shared memory give the same values on every run
// and for every worker count (they are reported too).
constexpr int kSharedFill = 0xff;

// The site's dense id (assigned on first use) with room for it in c's tables.
int ensure_site(CheckState& c, const check::Site* site);
// The region of the static __shared__ array at base (created on first use).
Region* static_region(CheckState& c, const void* base, std::size_t bytes);
// The shared region a pointer points into (the arena also when it has 0 bytes).
Region* shared_region_of(Worker& w, std::uintptr_t p);
// The static __shared__ array that ends exactly at p (a pointer one past it), or null.
Region* static_region_ending_at(CheckState& c, std::uintptr_t p);
// The cudaMalloc'ed buffer p points into, through the worker's small cache.
bool global_allocation_of(CheckState& c, const void* p, Allocation* out);
// The site with dense id `id` (ensure_site), for messages about another worker's access.
const check::Site* site_by_id(int id);

// check_global.cpp: races in global memory. A check-mode launch of total_blocks blocks starts (called once, before the
// workers run it); a worker starts a block; the running block sets a flag (check::kBlockFenced, kBlockSynced).
void check_global_begin_launch(std::uint64_t total_blocks);
void check_global_begin_block(Worker& w);
void note_block_flag(std::uint8_t flag);
struct Who;
// An in-bounds access of buffer `a`: checked against its word's last writer, and recorded. Always true (performed).
bool global_access(const Who& who, CheckState& c, const Allocation& a, const check::AccessInfo& info,
                   check::Access kind);

}  // namespace course_cpu::detail
