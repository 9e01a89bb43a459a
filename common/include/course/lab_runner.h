// Running a student's launcher: the harness, not the lab file, checks that the launch was accepted, that the kernel
// finished without a fault and, on the CPU backend, that check mode found no race, barrier divergence or
// out-of-bounds access. Any of these becomes a LabError whose message tells the student what went wrong.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace course {

class LabError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Calls `launcher` (e.g. [&]{ matadd(a, b, c, rows, cols, 0); }) and checks everything it did.
// `call` names the launcher in messages, e.g. "matadd(a, b, c, 1023, 1025)".
void run_launcher(const std::string& call, const std::function<void()>& launcher);

}  // namespace course
