// CPU backend of the course, check mode: shared-memory bank conflicts.
//
// The n-th access of each lane of a warp to the same source line (and
// variable, load or store) within one epoch forms one warp-wide request
// (check::bank_note); its wavefronts are the largest number of distinct
// 4-byte words that fall into one of the 32 banks (same word = broadcast), its
// degree those over the fewest wavefronts its bytes need (conflict_degree).
// Both are summed or maximized per site at the end of each epoch and published
// per launch.
#include "check_state.h"

#include <algorithm>
#include <bit>
#include <iterator>

namespace course_cpu::detail {

using check::BankSlot;
using check::Request;

namespace {

// Distinct words per bank, without sorting: per bank a short list of the
// words seen (a conflict-free request puts at most one word in each bank).
int request_degree(const Request& r, std::uint32_t mask, unsigned width) {
  if (width == 1) {
    // Common case: every bank holds at most one distinct word (degree 1).
    std::uint32_t banks = 0;
    std::uint32_t seen[32];
    bool simple = true;
    for (std::uint32_t m = mask; m != 0 && simple; m &= m - 1) {
      const std::uint32_t w = r.word[__builtin_ctz(m)];
      const std::uint32_t bit = 1u << (w % 32);
      if (!(banks & bit)) {
        banks |= bit;
        seen[w % 32] = w;
      } else {
        simple = seen[w % 32] == w;
      }
    }
    if (simple) return banks ? 1 : 0;
  }
  std::uint32_t words[32][32 * 4];
  std::uint8_t count[32] = {};
  int degree = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(mask & (1u << lane))) continue;
    for (unsigned k = 0; k < width; ++k) {
      const std::uint32_t w = r.word[lane] + k;
      const unsigned bank = w % 32;
      bool seen = false;
      for (unsigned q = 0; q < count[bank] && !seen; ++q) seen = words[bank][q] == w;
      if (!seen && count[bank] < 32 * 4) {
        words[bank][count[bank]++] = w;
        degree = std::max<int>(degree, count[bank]);
      }
    }
  }
  return degree;
}

// How many times more wavefronts a request takes than its bytes need: a wavefront serves 128 bytes (one word of
// each bank), so `wavefronts` over the fewest a request of these lanes and widths can take. 1 for a float4 load of
// 32 consecutive lanes (4 wavefronts for 512 bytes); for 4-byte words, the wavefronts themselves.
int conflict_degree(int wavefronts, std::uint32_t mask, unsigned width) {
  const unsigned words = static_cast<unsigned>(std::popcount(mask)) * width;
  const int fewest = static_cast<int>(std::max(1u, (words + 31) / 32));
  return (wavefronts + fewest - 1) / fewest;
}

// The lanes that made request n of slot s, and the first request after n
// that some of them did not make (where the mask changes next).
std::uint32_t lanes_in(const BankSlot& s, std::uint32_t n, std::uint32_t& until) {
  std::uint32_t mask = 0;
  until = ~0u;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (s.next[lane] > n) {
      mask |= 1u << lane;
      until = std::min<std::uint32_t>(until, s.next[lane]);
    }
  }
  return mask;
}

// Whether request a asks for the words of b, each moved by the same amount d
// (for the lanes in mask). Moving every word by d moves every word d banks
// on, so both have the same degree. Modulo 2^16 is enough: words are below
// 2^16, so adding d modulo 2^16 still keeps distinct words distinct and
// moves every bank by d modulo 32.
bool same_shape(const Request& a, const Request& b, std::uint32_t mask) {
  if (mask == 0) return true;
  const unsigned first = static_cast<unsigned>(__builtin_ctz(mask));
  const auto d = static_cast<std::uint16_t>(a.word[first] - b.word[first]);
  if (mask == ~0u) {  // a whole warp: a loop the compiler vectorizes
    std::uint16_t differ = 0;
    for (unsigned lane = 0; lane < 32; ++lane) differ |= static_cast<std::uint16_t>(a.word[lane] - b.word[lane] - d);
    return differ == 0;
  }
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
    if (static_cast<std::uint16_t>(a.word[lane] - b.word[lane]) != d) return false;
  }
  return true;
}

}  // namespace

void check_end_epoch(Worker& w) {
  CheckState& c = *w.check;
  // The last request whose degree was computed: most requests (the next k of
  // a loop, the next warp) repeat its shape.
  const Request* last = nullptr;
  std::uint32_t last_mask = 0, last_width = 0;
  int last_degree = 0;
  for (const std::uint32_t index : c.active) {
    const BankSlot& s = c.bank[index];
    BankStats& st = c.stats[index >> 5];  // (id * 2 + store)
    std::uint32_t mask = 0, until = 0;
    const std::uint32_t nreq = *std::max_element(std::begin(s.next), std::end(s.next));
    for (std::uint32_t n = 0; n < nreq; ++n) {
      if (n >= until) mask = lanes_in(s, n, until);
      const Request& r = s.req[n];
      if (last == nullptr || mask != last_mask || s.width != last_width || !same_shape(r, *last, mask)) {
        last_degree = request_degree(r, mask, s.width);
        last_mask = mask;
        last_width = s.width;
      }
      last = &r;
      ++st.requests;
      st.wavefronts += static_cast<std::uint64_t>(last_degree);
      st.max_degree = std::max(st.max_degree, conflict_degree(last_degree, mask, s.width));
    }
  }
  c.active.clear();
  ++c.hot.epoch;
}

void check_end_launch(const std::vector<Worker*>& workers) {
  std::vector<std::pair<BankKey, BankStats>> all;
  for (Worker* w : workers) {
    w->hot = nullptr;
    if (!w->check) continue;
    CheckState& c = *w->check;
    for (std::size_t k = 0; k < c.stats.size(); ++k) {
      BankStats& st = c.stats[k];
      if (st.requests == 0) continue;
      const check::Site* site = c.sites[k / 2].site;
      all.emplace_back(BankKey{site->file, site->line, site->var, (k & 1) != 0}, st);
      st = BankStats{};
    }
  }
  publish_bank_stats(all);
}

}  // namespace course_cpu::detail

namespace course_cpu::check {

void bank_open(Hot& h, BankSlot& slot, std::uint32_t index, unsigned width) {
  slot.epoch = h.epoch;
  slot.width = width;
  std::fill(std::begin(slot.next), std::end(slot.next), std::uint16_t{0});
  detail::tl_worker->check->active.push_back(index);
}

void bank_grow(BankSlot& slot, unsigned n) {
  slot.storage.resize(std::max<std::size_t>(n + 1, 2 * slot.storage.size()));
  slot.req = slot.storage.data();
  slot.capacity = static_cast<std::uint32_t>(slot.storage.size());
}

}  // namespace course_cpu::check
