// CPU backend of the course: turning a segmentation fault inside a kernel
// into a message a student can act on. In fast mode an out-of-bounds write
// just past a cudaMalloc'ed buffer hits the guard page after it (memory.cpp).
#include "check_messages.h"
#include "scheduler.h"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace course_cpu::detail {
namespace {

struct sigaction g_previous;

void say(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

// Whether the faulting access was a write (x86-64: bit 1 of the page fault's error code), else "read or wrote".
const char* access_verb(const void* context) {
#if defined(__x86_64__) && defined(REG_ERR)
  const auto* uc = static_cast<const ucontext_t*>(context);
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0 ? kWroteText : kReadText;
#else
  (void)context;
  return kReadOrWroteText;
#endif
}

// Whether the CUDA thread's stack pointer is below its fiber stack: a frame larger than the stack (a big local
// array) moves it past the guard page at once, and the fault may then land anywhere below, not on the guard page.
bool stack_pointer_below(const ThreadSlot& t, const void* context) {
#if defined(__x86_64__) && defined(REG_RSP)
  const auto* uc = static_cast<const ucontext_t*>(context);
  const auto sp = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
  // stack_top is 64 bytes above a local of the fiber's first frame, so this bottom lies a little below the real one
  // (inside the guard page): a stack pointer below it is past the stack.
  const std::uintptr_t bottom = t.stack_top - fiber_stack_bytes() - 64;
  return t.stack_top != 0 && sp < bottom;
#else
  (void)t;
  (void)context;
  return false;
#endif
}

// Host code touched a cudaMalloc buffer outside any kernel (memory.cpp keeps them PROT_NONE there).
void host_access(const void* addr, const Allocation& a, const void* context) {
  char buf[1024];
  host_access_text(buf, sizeof buf, access_verb(context), addr,
                   static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(addr) - a.begin), a);
  say(buf);
  say(kHostAccessFixText);
  _exit(EXIT_FAILURE);
}

void on_fault(int sig, siginfo_t* info, void* context) {
  Worker* w = tl_worker;
  ThreadSlot* t = tl_slot;
  const LaunchSite* site = g_running_site;
  if (w == nullptr || t == nullptr || site == nullptr) {
    Allocation a;
    if (sig == SIGSEGV && find_device_allocation_closed_to_host(info->si_addr, &a))
      host_access(info->si_addr, a, context);
    // Not inside a kernel: let the default action happen.
    sigaction(SIGSEGV, &g_previous, nullptr);
    sigaction(SIGBUS, &g_previous, nullptr);
    raise(sig);
    return;
  }
  char buf[2048];
  const void* addr = info->si_addr;
  crash_header_text(buf, sizeof buf, *site, w->block.idx, t->idx);
  say(buf);
  Allocation a;
  if (find_guarded_allocation(addr, &a)) {
    past_the_end_text(buf, sizeof buf, addr,
                      static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(addr) - (a.begin + a.size)), a);
  } else if (w->stacks.in_guard_page(addr) || stack_pointer_below(*t, context)) {
    stack_overflow_text(buf, sizeof buf, addr);
  } else if (sig == SIGSEGV && info->si_code == SI_KERNEL) {
    // A general-protection fault: x86 gives no address for it. Inside a kernel it most often comes from an aligned
    // vector instruction (the compiler uses one for float4, int4, double2) at an address that is not a multiple of
    // 16, rarely from a wild pointer.
    std::snprintf(buf, sizeof buf, "%s", kGeneralProtectionText);
  } else {
    outside_buffers_text(buf, sizeof buf, addr);
  }
  say(buf);
  say(kCrashHintText);
  _exit(EXIT_FAILURE);
}

}  // namespace

void install_fault_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_previous);
    sigaction(SIGBUS, &sa, nullptr);
  });
}

// A fault on a fiber stack's guard page needs another stack to run the handler.
void install_fault_stack_for_thread() {
  const std::size_t size = 64 * 1024;
  stack_t ss;
  ss.ss_sp = std::malloc(size);  // lives as long as the thread
  ss.ss_size = size;
  ss.ss_flags = 0;
  if (ss.ss_sp != nullptr) sigaltstack(&ss, nullptr);
}

}  // namespace course_cpu::detail
