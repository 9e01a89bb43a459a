// Check-mode findings of the CPU backend as the paragraph run_launcher appends to its message ("" elsewhere).
// Shared by the harness (local launches) and the worker (course/remote.h), which sends it to the judge.
#pragma once

#include <string>

namespace course {

// "\n  [race] file.cu:40: ..." per finding since the last call (and forgets them); "" on the GPU build.
std::string cpu_backend_findings();

}  // namespace course
