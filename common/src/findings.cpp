#include "findings.h"

#include <sstream>

#if defined(COURSE_BACKEND_CPU)
#include <course_cpu/diagnostics.h>
#endif

namespace course {

#if defined(COURSE_BACKEND_CPU)
std::string cpu_backend_findings() {
  std::ostringstream out;
  for (const auto& d : course_cpu::take_diagnostics()) {
    out << "\n  [" << d.category << "] " << d.file << ":" << d.line << ": " << d.message;
    if (d.occurrences > 1) out << " (" << d.occurrences << " times)";
  }
  return out.str();
}
#else
std::string cpu_backend_findings() { return ""; }
#endif

}  // namespace course
