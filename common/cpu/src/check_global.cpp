// CPU backend of the course, check mode: races in global memory (the buffers
// of cudaMalloc and its kin).
//
// Each buffer a check-mode kernel stores to gets a shadow: for every 4-byte
// word, its last writer in the current launch (check::GlobalWord, made at the
// buffer's first such store, memory.cpp). An access of a word that another
// thread wrote in the same launch is a race when nothing orders the two:
//  * within a block, as in shared memory: the same barrier interval, and not
//    lanes of one warp linked by a warp rendezvous in between (`bins[t % 4] += 1`
//    by every thread: on a GPU, lanes read the same old value and updates are
//    lost, where the CPU, running threads one after another, loses none);
//  * between blocks, always: blocks of one launch run in no order a program can
//    rely on, and no __syncthreads() spans them (`*out += block_sum;`) - unless
//    the writer's block called __threadfence() and the accessing block has made
//    an atomic (or volatile) access before, or this access is one (a poll of the
//    flag the writer set after its fence): the CUDA samples' threadFenceReduction
//    pattern (the last block, chosen by an atomic ticket, reads and overwrites
//    the other blocks' partial sums).
// Atomics never race with atomics, and volatile loads and stores (`volatile int*
// flag`) count as such too (PTX treats them as relaxed operations; `+=` on a
// volatile element is still a read and a separate write); a plain read of a
// word that other threads change with atomics only is no race either (a CAS
// loop's first guess, `if (v > *m) atomicMax(m, v);`: it reads one of the
// word's values, whole, and the atomic decides); a plain store of the bytes
// the word already holds races only with an access that changes it (`*done =
// 1;` by every block does not race).
// Only the last writer is kept: a read followed, in the same interval, by
// another thread's write of the word is not seen (a store-only shadow keeps the
// cost of an access to a few comparisons).
#include "check_messages.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

namespace course_cpu::detail {
namespace {

// The current check-mode launch (0: none yet) and its blocks' flags (kBlockFenced, kBlockSynced), by block linear id
// modulo the table's size: two blocks that share an entry may each seem to have fenced or synced, which can only hide
// a race between them, never report one.
std::uint32_t g_launch = 0;
std::vector<std::uint8_t> g_block_flags;
constexpr std::uint64_t kMaxFlagEntries = std::uint64_t{1} << 22;

std::uint8_t flags_of(std::uint64_t block) {
  return __atomic_load_n(&g_block_flags[block % g_block_flags.size()], __ATOMIC_RELAXED);
}

std::uint64_t block_of(std::uint64_t key) { return (key >> 1) & 0x7fffffffu; }

// Whether the accessing thread may take the word's last write (of another block, `key`) as ordered before its access.
// The bytes of the word at `word` that an access of `size` bytes at `addr` covers (bit i: byte i).
std::uint8_t word_bytes(std::uintptr_t addr, std::size_t size, std::uintptr_t word) {
  const std::uintptr_t lo = std::max(addr, word) - word, hi = std::min(addr + size, word + 4) - word;
  return static_cast<std::uint8_t>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

// `relaxed`: the access itself is atomic or volatile (a poll of the flag the writer set after its fence).
bool released(const check::Hot& h, std::uint64_t key, bool relaxed) {
  const bool writer_fenced = (key & check::kAtomicWrite) != 0 || (flags_of(block_of(key)) & check::kBlockFenced) != 0;
  return writer_fenced && (relaxed || (*h.block_flags & check::kBlockSynced) != 0);
}

}  // namespace

void check_global_begin_launch(std::uint64_t total_blocks) {
  ++g_launch;
  if (g_launch == 0) g_launch = 1;  // (after 2^32 launches: records of launch 1 may then look current)
  g_block_flags.assign(std::min<std::uint64_t>(std::max<std::uint64_t>(total_blocks, 1), kMaxFlagEntries), 0);
}

void check_global_begin_block(Worker& w) {
  check::Hot& h = w.check->hot;
  h.launch_key = std::uint64_t{g_launch} << 32;
  h.block_key = h.launch_key | (w.block.linear & 0x7fffffffu) << 1;
  h.block_flags = &g_block_flags[w.block.linear % g_block_flags.size()];
}

void note_block_flag(std::uint8_t flag) {
  if (check::Hot* h = check::tl_hot; h != nullptr && h->block_flags != nullptr)
    __atomic_fetch_or(h->block_flags, flag, __ATOMIC_RELAXED);
}

void note_threadfence() { note_block_flag(check::kBlockFenced); }

namespace {
// Blocks run on several OS threads: the check and the record of one access's words are made under a lock of their
// 16 bytes, so that two blocks writing different bytes of one word (`char` pixels) at once do not tear its record
// (one block's key with the other's bytes). The fast path, which takes whole words only, needs none: two whole-word
// writes of one word by different blocks race anyway.
std::atomic_flag g_word_locks[256];

class WordLocks {
 public:
  // (At most 16 bytes: one slot or two, taken in the order of their numbers.)
  WordLocks(std::uintptr_t first_byte, std::uintptr_t last_byte)
      : lo_(std::min(slot(first_byte), slot(last_byte))), hi_(std::max(slot(first_byte), slot(last_byte))) {
    lock(lo_);
    if (hi_ != lo_) lock(hi_);
  }
  ~WordLocks() {
    if (hi_ != lo_) g_word_locks[hi_].clear(std::memory_order_release);
    g_word_locks[lo_].clear(std::memory_order_release);
  }
  WordLocks(const WordLocks&) = delete;
  WordLocks& operator=(const WordLocks&) = delete;

 private:
  static std::size_t slot(std::uintptr_t byte) { return (byte >> 4) % 256; }
  static void lock(std::size_t i) {
    while (g_word_locks[i].test_and_set(std::memory_order_acquire)) __builtin_ia32_pause();
  }
  std::size_t lo_, hi_;
};
}  // namespace

bool global_access(const Who& who, CheckState& c, const Allocation& a, const check::AccessInfo& info,
                   check::Access kind) {
  if (kind == check::Access::none || kind == check::Access::bounds) return true;
  const bool read = check::reads(kind), write = check::writes(kind);
  const bool atomic = info.site->atomic;
  // Atomics, and volatile loads and stores (not `+=`): relaxed operations, which do not race with each other.
  const bool relaxed = atomic || (info.is_volatile && kind != check::Access::read_write);
  check::GlobalWord* shadow = a.shadow;
  if (shadow == nullptr && write) shadow = global_shadow(a.begin);
  if (shadow != nullptr) {
    check::Hot& h = c.hot;
    const auto addr = reinterpret_cast<std::uintptr_t>(info.addr);
    const std::size_t first = (addr - a.begin) / 4, last = (addr - a.begin + info.elem_size - 1) / 4;
    // A plain store of the bytes the element already holds: it races with no access but a change of the word (by
    // either thread, before or after it: block 0 zeroing a total other blocks add to with atomics). Compared after
    // the word's record is read: another block stores its value before its record (global_fast).
    const bool plain_store = info.stored != nullptr && write && !read && !relaxed;
    const auto keeps_value = [&] { return plain_store && std::memcmp(info.addr, info.stored, info.elem_size) == 0; };
    const unsigned me = who.t.linear;
    const std::uint32_t my_wsync = who.w.block.warp_sync[me >> 5];
    const int id = ensure_site(c, info.site);
    const WordLocks locked(addr, addr + info.elem_size - 1);
    for (std::size_t i = first; i <= last; ++i) {
      check::GlobalWord& g = shadow[i];
      const std::uint64_t key = __atomic_load_n(&g.key, __ATOMIC_ACQUIRE);
      const std::uint8_t bytes = word_bytes(addr, info.elem_size, a.begin + 4 * i);
      if ((key & check::kLaunchBits) == h.launch_key && (g.bytes & bytes) != 0) {
        const bool same_block = (key | check::kAtomicWrite) == (h.block_key | check::kAtomicWrite);
        const bool writer_relaxed = (key & check::kAtomicWrite) != 0;
        // A plain read of a word another thread changes only with atomics reads one of its values, whole: a CAS
        // loop's first guess, `if (v > *m) atomicMax(m, v);`, `!visited[v] && atomicExch(&visited[v], 1) == 0`.
        const bool exempt = (relaxed && writer_relaxed) || (read && !write && writer_relaxed) || keeps_value() ||
                            (g.same != 0 && !write);  // the value the word already held
        const bool unordered =
            same_block ? g.epoch == h.epoch && g.thread != me &&
                             !warp_ordered(who.w.block, g.thread, g.wsync, me, my_wsync, who.w.block.warp_full[me >> 5])
                       : !released(h, key, relaxed);
        if (unordered && !exempt) {
          const check::Site* other_site = site_by_id(static_cast<int>(g.site));
          const GlobalWriter other{g.thread, same_block ? -1 : static_cast<long long>(block_of(key)), other_site->line,
                                   other_site->var, g.wsync};
          report(who, "race", info, [&] { return global_race_text(who, kind, info, other, my_wsync); });
          break;
        }
      }
    }
    if (write) {
      const bool keeps = keeps_value();
      // A plain store's value goes to memory before the record (the caller stores it again), as in the fast path.
      if (info.stored != nullptr && !read) std::memcpy(const_cast<void*>(info.addr), info.stored, info.elem_size);
      const std::uint64_t key = h.block_key | (relaxed ? check::kAtomicWrite : 0);
      for (std::size_t i = first; i <= last; ++i) {
        check::GlobalWord& g = shadow[i];
        // A store that keeps the value does not replace a write of this launch, which later accesses may race with;
        // nor does an atomic replace a plain write of this launch (block 0's `*total = 0;` before its own atomicAdd
        // still races with the other blocks' atomics).
        const std::uint64_t old = __atomic_load_n(&g.key, __ATOMIC_RELAXED);
        if ((old & check::kLaunchBits) == h.launch_key && (keeps || (relaxed && (old & check::kAtomicWrite) == 0)))
          continue;
        g.epoch = h.epoch;
        g.wsync = my_wsync;
        g.site = static_cast<std::uint32_t>(id);
        g.thread = static_cast<std::uint16_t>(me);
        g.bytes = word_bytes(addr, info.elem_size, a.begin + 4 * i);
        g.same = keeps ? 1 : 0;
        __atomic_store_n(&g.key, key, __ATOMIC_RELEASE);
      }
    }
  }
  if (relaxed) note_block_flag(check::kBlockSynced);
  return true;
}

}  // namespace course_cpu::detail

namespace course_cpu::check {
void note_relaxed_access() { detail::note_block_flag(kBlockSynced); }
}  // namespace course_cpu::check
