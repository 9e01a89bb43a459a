// CPU backend of the course, check mode: the handler of the compiler's alignment checks.
//
// A check-mode lab file is compiled with -fsanitize=alignment -fsanitize-recover=alignment (the target
// course_cpu_check_instrumentation): before every load or store through a pointer or reference of type T the
// compiler tests that the address is a multiple of alignof(T) and, when it is not, calls the handler below with the
// access's source location, which the rewriter's #line makes the student's file and line. It is the only UBSan
// entry point that option emits; none of UBSan's runtime is linked. The report is check_alignment.cpp's.
#include "check_messages.h"
#include "scheduler.h"

#include <cstdint>
#include <string>

namespace {

// The layouts GCC and Clang pass to the handler (compiler-rt's ubsan_handlers.h, "v1").
struct SourceLocation {
  const char* file;
  std::uint32_t line;
  std::uint32_t column;
};
struct TypeDescriptor {
  std::uint16_t kind;
  std::uint16_t info;
  char name[1];
};
struct TypeMismatchData {
  SourceLocation location;
  const TypeDescriptor* type;
  unsigned char log_alignment;
  unsigned char check_kind;  // 0 load, 1 store, 2 reference binding (a copy binds one first), 3 member access, ...
};

}  // namespace

// Only the recoverable entry point: without -fsanitize-recover the compiler calls a noreturn variant, which this
// runtime leaves undefined so that such a build fails to link instead of returning from a noreturn call.
extern "C" void __ubsan_handle_type_mismatch_v1(TypeMismatchData* data, std::uintptr_t pointer) {
  using namespace course_cpu::detail;
  // Host code of the lab file (a launcher), or a null pointer, which alignment does not cover: nothing to do here.
  if (!in_checked_kernel() || pointer == 0) return;
  const std::size_t alignment = std::size_t{1} << data->log_alignment;
  const MisalignedAccess access = misaligned_typed(data->type->name, data->check_kind, alignment, pointer);
  stop_misaligned(*tl_worker, *tl_slot, data->location.file, static_cast<int>(data->location.line), "", access);
}
