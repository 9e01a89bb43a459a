// CPU backend of the course, check mode: misaligned accesses.
//
// Two ways in, one report (this file and check_ubsan.cpp):
//  * A checked subscript (a pointer parameter or local pointer, course_cpu/check.h) whose element address is not a
//    multiple of the element type's alignment calls check::misaligned() with its site.
//  * Every other access: a check-mode lab file is compiled with -fsanitize=alignment -fsanitize-recover=alignment
//    (the target course_cpu_check_instrumentation): the compiler's check calls UBSan's handler, which
//    check_ubsan.cpp defines (its own object, so that a lab file that defines it too is a symbol-rule collision,
//    not a link error).
// The access is reported, the launch fails with cudaErrorMisalignedAddress (a GPU faults on it) and the block is
// stopped before the access runs, like the GPU's trap.
#include "check_messages.h"
#include "scheduler.h"

#include <cstdint>
#include <string>

namespace course_cpu::detail {

void stop_misaligned(Worker& w, ThreadSlot& t, const char* file, int line, const char* variable,
                     const MisalignedAccess& access) {
  const Who who{w, t};
  w.misaligned_address = true;
  w.sink.add("misaligned-address", file, line, variable, w.block.linear, t.linear,
             [&] { return misaligned_access_text(who, access); });
  stop_block_here(w, t);
}

bool in_checked_kernel() { return tl_worker != nullptr && tl_slot != nullptr && tl_worker->checked; }

}  // namespace course_cpu::detail

namespace course_cpu::check {

void misaligned(const Site* site, const void* address, std::size_t alignment, long long index) {
  using namespace course_cpu::detail;
  if (!in_checked_kernel()) return;  // host code
  const MisalignedAccess access =
      misaligned_subscript(site->var, index, alignment, reinterpret_cast<std::uintptr_t>(address));
  stop_misaligned(*tl_worker, *tl_slot, site->file, site->line, site->var, access);
}

}  // namespace course_cpu::check
