// CPU backend of the course: turning a segmentation fault inside a kernel
// into a message a student can act on. In fast mode an out-of-bounds write
// just past a cudaMalloc'ed buffer hits the guard page after it (memory.cpp).
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
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0 ? "wrote" : "read";
#else
  (void)context;
  return "read or wrote";
#endif
}

// Host code touched a cudaMalloc buffer outside any kernel (memory.cpp keeps them PROT_NONE there).
void host_access(const void* addr, const Allocation& a, const void* context) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "\n[course-cpu] FATAL: host code %s device memory: address %p is byte %zu of a buffer cudaMalloc'ed "
                "with %zu bytes (at %p).\n",
                access_verb(context), addr, static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(addr) - a.begin),
                a.size, reinterpret_cast<void*>(a.begin));
  say(buf);
  say("[course-cpu] A pointer from cudaMalloc may be dereferenced only in device code: on a GPU this access is a "
      "segmentation fault too. Copy the data with cudaMemcpy (cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice) and "
      "use the host copy, or set device memory with cudaMemset or a kernel.\n");
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
  const uint3 b = w->block.idx, th = t->idx;
  std::snprintf(buf, sizeof buf,
                "\n[course-cpu] FATAL: kernel '%s' (launched at %s:%d) crashed in block (%u,%u,%u), "
                "thread (%u,%u,%u).\n",
                site->kernel, site->file, site->line, b.x, b.y, b.z, th.x, th.y, th.z);
  say(buf);
  Allocation a;
  if (find_guarded_allocation(addr, &a)) {
    std::snprintf(buf, sizeof buf,
                  "[course-cpu] It accessed address %p, which is %zu bytes past the end of a GPU buffer "
                  "(cudaMalloc of %zu bytes at %p).\n"
                  "[course-cpu] On a GPU this is an illegal memory access (cudaErrorIllegalAddress): "
                  "a bounds check such as `if (i < n)` is probably missing or wrong.\n",
                  addr, static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(addr) - (a.begin + a.size)), a.size,
                  reinterpret_cast<void*>(a.begin));
  } else if (w->stacks.in_guard_page(addr)) {
    std::snprintf(buf, sizeof buf,
                  "[course-cpu] The CUDA thread ran out of stack (address %p): local arrays are too "
                  "large or recursion is too deep. Raise COURSE_CPU_STACK_KB (default 256).\n",
                  addr);
  } else if (sig == SIGSEGV && info->si_code == SI_KERNEL) {
    // A general-protection fault: x86 gives no address for it. Inside a kernel it most often comes from an aligned
    // vector instruction (the compiler uses one for float4, int4, double2) at an address that is not a multiple of
    // 16, rarely from a wild pointer.
    say("[course-cpu] It made a general-protection fault, which comes without an address: most likely a float4, "
        "int4 or double2 load or store at an address that is not a multiple of 16 bytes (on a GPU: "
        "cudaErrorMisalignedAddress), or a wild pointer. A vector access needs an index that is a multiple of "
        "the vector's width from an aligned start.\n");
    buf[0] = '\0';
  } else {
    std::snprintf(buf, sizeof buf,
                  "[course-cpu] It accessed address %p, which is not inside any GPU buffer: a host "
                  "pointer passed to the kernel, a null pointer, or an index far out of bounds.\n",
                  addr);
  }
  say(buf);
  say("[course-cpu] Run your lab's check-mode tests (their names start with labNN.check., e.g. "
      "`ctest --test-dir build -R lab01.check` for lab 01) to get the exact file, line and variable.\n");
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
