// CPU backend of the course: collecting, de-duplicating and reporting what
// the runtime found. Each distinct (category, file, line, variable) is kept
// once with a count; its message is that of the first occurrence by lowest
// (block, thread), so the output does not depend on timing or worker count.
#include "check_messages.h"
#include "internal.h"
#include "scheduler.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>

namespace course_cpu::detail {

std::string format_index(const uint3& v, const dim3& dims) {
  std::ostringstream s;
  s << '(' << v.x << ',' << v.y;
  if (dims.z != 1) s << ',' << v.z;
  s << ')';
  return s.str();
}

std::string format_ranges(const std::vector<unsigned>& ids_in) {
  std::vector<unsigned> ids = ids_in;
  std::sort(ids.begin(), ids.end());
  std::ostringstream s;
  std::size_t i = 0, ranges = 0;
  while (i < ids.size()) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (ranges == 6) {
      s << ", ...";
      break;
    }
    if (ranges > 0) s << ", ";
    s << ids[i];
    if (j > i) s << ".." << ids[j];
    ++ranges;
    i = j + 1;
  }
  return s.str();
}

std::string ordinal(int n) {
  const int mod100 = n % 100, mod10 = n % 10;
  const char* suffix = (mod100 >= 11 && mod100 <= 13) ? "th"
                       : mod10 == 1                   ? "st"
                       : mod10 == 2                   ? "nd"
                       : mod10 == 3                   ? "rd"
                                                      : "th";
  return std::to_string(n) + suffix;
}

void DiagnosticSink::add(const char* category, const char* file, int line, const char* variable, std::uint64_t block,
                         unsigned thread, const std::function<std::string()>& message) {
  for (Entry& e : entries_) {
    if (e.line == line && e.category == category && e.variable == variable && e.file == file) {
      ++e.count;
      if (std::tie(block, thread) < std::tie(e.block, e.thread)) {
        e.block = block;
        e.thread = thread;
        e.message = message();
      }
      return;
    }
  }
  entries_.push_back(Entry{category, file, line, variable, block, thread, message(), 1});
}

namespace {

struct Store {
  std::mutex mutex;
  std::vector<Diagnostic> diagnostics;
  std::map<std::tuple<std::string, int, std::string, bool>, BankStats> bank;
};
Store& store() {
  static Store* s = new Store;
  return *s;
}
std::atomic<bool> g_check_mode{false};

bool quiet() {
  static const bool q = [] {
    const char* env = std::getenv("COURSE_CPU_QUIET");
    return env != nullptr && *env != '\0' && *env != '0';
  }();
  return q;
}

constexpr std::size_t kPrintLimit = 20;

void print(const std::vector<Diagnostic>& list) {
  if (quiet()) return;
  std::size_t shown = 0;
  for (const Diagnostic& d : list) {
    if (shown == kPrintLimit) {
      std::fputs(more_problems_text(list.size() - shown).c_str(), stderr);
      break;
    }
    std::fprintf(stderr, "[course-cpu] %s:%d: %s: %s", d.file.c_str(), d.line, d.category.c_str(), d.message.c_str());
    if (d.occurrences > 1) std::fputs(occurrences_text(d.occurrences).c_str(), stderr);
    std::fputc('\n', stderr);
    ++shown;
  }
}

}  // namespace

void publish_diagnostics(const std::vector<const DiagnosticSink*>& sinks) {
  struct Merged {
    DiagnosticSink::Entry first;
    std::size_t count;
  };
  std::map<std::tuple<std::string, std::string, int, std::string>, Merged> merged;
  for (const DiagnosticSink* sink : sinks) {
    for (const DiagnosticSink::Entry& e : sink->entries()) {
      auto key = std::make_tuple(std::string(e.category), std::string(e.file ? e.file : ""), e.line,
                                 std::string(e.variable ? e.variable : ""));
      auto it = merged.find(key);
      if (it == merged.end()) {
        merged.emplace(std::move(key), Merged{e, e.count});
      } else {
        it->second.count += e.count;
        if (std::tie(e.block, e.thread) < std::tie(it->second.first.block, it->second.first.thread))
          it->second.first = e;
      }
    }
  }
  std::vector<std::pair<std::tuple<std::uint64_t, unsigned, std::string, int>, Diagnostic>> ordered;
  for (auto& [key, m] : merged) {
    Diagnostic d{std::get<0>(key), std::get<1>(key), std::get<2>(key), m.first.message, m.count};
    ordered.emplace_back(std::make_tuple(m.first.block, m.first.thread, d.category, d.line), std::move(d));
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Diagnostic> list;
  for (auto& o : ordered) list.push_back(std::move(o.second));
  print(list);
  std::lock_guard lock(store().mutex);
  for (Diagnostic& d : list) store().diagnostics.push_back(std::move(d));
}

void publish_single(const char* category, const char* file, int line, std::string message) {
  std::vector<Diagnostic> list{Diagnostic{category, file ? file : "", line, std::move(message), 1}};
  print(list);
  std::lock_guard lock(store().mutex);
  store().diagnostics.push_back(std::move(list.front()));
}

bool BankKey::operator<(const BankKey& o) const {
  return std::tie(file, line, variable, store) < std::tie(o.file, o.line, o.variable, o.store);
}

void publish_bank_stats(const std::vector<std::pair<BankKey, BankStats>>& stats) {
  std::lock_guard lock(store().mutex);
  for (const auto& [k, s] : stats) {
    BankStats& t = store().bank[std::make_tuple(std::string(k.file ? k.file : ""), k.line,
                                                std::string(k.variable ? k.variable : ""), k.store)];
    t.requests += s.requests;
    t.wavefronts += s.wavefronts;
    t.max_degree = std::max(t.max_degree, s.max_degree);
  }
}

void mark_check_mode_active() { g_check_mode.store(true); }

const check::Site* call_site(const char* what, const char* suffix, const char* file, unsigned line, bool atomic) {
  // Called at every copy or atomic of every thread: a small per-worker cache by the addresses of the name and the file
  // name keeps the lock for a call site's first use by a worker.
  struct Cached {
    const char* what = nullptr;
    const char* file = nullptr;
    unsigned line = 0;
    const check::Site* site = nullptr;
  };
  thread_local Cached cache[16];
  Cached& hit = cache[line % 16];
  if (hit.what == what && hit.file == file && hit.line == line) return hit.site;
  // The name is the key's first part: a map's keys stay where they are.
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, unsigned>, check::Site> sites;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto [it, fresh] = sites.try_emplace({std::string(what) + suffix, file, line});
  if (fresh) {
    it->second = check::Site{std::get<0>(it->first).c_str(), file, static_cast<int>(line), 0};
    it->second.atomic = atomic;
    it->second.compare_and_swap = atomic && std::strcmp(what, "atomicCAS") == 0;
  }
  hit = Cached{what, file, line, &it->second};
  return &it->second;
}

}  // namespace course_cpu::detail

namespace course_cpu {

std::vector<Diagnostic> take_diagnostics() {
  std::lock_guard lock(detail::store().mutex);
  std::vector<Diagnostic> out;
  out.swap(detail::store().diagnostics);
  return out;
}

BankConflictReport take_bank_conflicts() {
  std::lock_guard lock(detail::store().mutex);
  BankConflictReport r;
  for (const auto& [k, s] : detail::store().bank) {
    BankConflictLine l{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k),
                       s.requests,     s.wavefronts,   s.max_degree};
    (l.store ? r.store_requests : r.load_requests) += s.requests;
    (l.store ? r.store_wavefronts : r.load_wavefronts) += s.wavefronts;
    r.max_degree = std::max(r.max_degree, s.max_degree);
    r.lines.push_back(std::move(l));
  }
  detail::store().bank.clear();
  return r;
}

bool check_mode_active() { return detail::g_check_mode.load(); }

}  // namespace course_cpu
