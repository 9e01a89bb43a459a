// The judge/worker split: the student's code never runs in the process that judges it.
//
//   judge  (labNN_judge_<backend>)  the lab's tests, the harness, the baselines, the CPU references, the seed and the
//                                   GoogleTest report. It contains no student code: each launcher the tests call
//                                   (matadd, tiled_gemm<32>, ...) is a stub, generated from the lab's interface
//                                   header by grader/cmake/configure_labs.py, that sends the call to the worker.
//   worker (labNN_<backend>, ...)   the student's lab file and a loop that runs the calls it receives on the
//                                   judge's buffers, then reports what the launch did (errors, check-mode findings,
//                                   bank-conflict counts). Nothing else: no tests, no reference, no report, no seed.
//
// The buffers are the judge's: on a GPU the worker maps them through CUDA IPC, on the CPU backend every device
// allocation is a memfd that the worker maps at the same address. So the judge uploads the inputs, the worker's
// kernel writes the output in place, and the judge downloads and compares it: what decides a verdict never runs
// where the student's code can reach it. The judge starts the worker on the first call (the program named by
// --course-worker=PATH, wrapped by the grader's sandbox when --course-worker-wrap=ARG words are given), with an
// environment of its own: the seed and the grader's variables never reach it.
#pragma once

#include "course/bank_conflicts.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace course::remote {

// One argument of a launcher as sent over the wire.
struct Value {
  enum class Kind { integer, real, pointer, default_stream } kind;
  long long integer = 0;
  double real = 0.0;
  const void* pointer = nullptr;
};

template <class T>
Value value_of(T v) {
  if constexpr (std::is_same_v<T, cudaStream_t>) {
    return {Value::Kind::default_stream, 0, 0.0, static_cast<const void*>(v)};
  } else if constexpr (std::is_pointer_v<T>) {
    return {Value::Kind::pointer, 0, 0.0, static_cast<const void*>(v)};
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    return {Value::Kind::integer, static_cast<long long>(v), 0.0, nullptr};
  } else {
    static_assert(std::is_floating_point_v<T>, "a launcher argument must be a pointer, an integer or a float");
    return {Value::Kind::real, 0, static_cast<double>(v), nullptr};
  }
}

// What one remote call did, as the worker reported it (run_launcher turns it into the student's message).
struct Outcome {
  cudaError_t launch = cudaSuccess;  // right after the launcher returned
  cudaError_t run = cudaSuccess;     // after synchronizing the device
  std::string findings;              // check-mode findings ("\n  [race] file:line: ..."), untrusted text
  std::string failure;     // the worker died, broke the protocol or ran past the deadline: why, for the student
  bool timed_out = false;  // the worker did not answer within --course-call-seconds (it was stopped)
};

// Judge side: sends one call and waits for its outcome. Called by the generated stubs.
void call_values(const std::string& launcher, const std::vector<Value>& args);
template <class... Args>
void call(const std::string& launcher, Args... args) {
  call_values(launcher, {value_of(args)...});
}

// Timing (timing.cpp): the next `n` remote calls are one batch. The judge holds the first n - 1 and sends them with
// the last, in one go; the worker runs them back to back (each with the arguments its own call named: every timed
// call can have buffers of its own), synchronizes the device once and answers for all. end_batch() returns how many
// remote calls the batch held (0: the launches were the judge's own, e.g. a baseline) and sends what is still held
// if the last launch made no call.
void begin_batch(int n);
int end_batch();
// Before a timed batch of remote calls: the worker puts a little GPU work of its own through, so that switching the
// GPU from the judge's context (which just refreshed the batch's inputs) to the worker's happens outside the batch
// (measured on an H100: about 0.2 ms per switch, which inside a 2 ms batch made a reduction look 25 % slower).
void warm_worker();

// A call the worker does not answer within --course-call-seconds=N fails (Outcome::timed_out) and the worker is
// stopped; `report` is told (judge_main.cpp records it in the GoogleTest report, where the grader reads it).
void on_call_timeout(void (*report)(double seconds));
// A worker that dies during a launcher call (a segmentation fault, an abort, a limit of the sandbox) fails the call;
// `report` is told how it ended (judge_main.cpp records it, and the grader says `crash`, not a wrong result).
void on_worker_death(void (*report)(const std::string& how));
// Every answer the worker gives in time: how long after the call (or batch) was sent it came. judge_main.cpp records
// each test's longest, from which the grader's deadline (course.toml [limits]) is calibrated.
void on_answer(void (*report)(double seconds));

// The outcome of the last remote call not yet taken (run_launcher takes it), or nothing when no call was remote.
std::optional<Outcome> take_outcome();
// The bank-conflict counts the worker reported since the last take (course::take_bank_conflicts merges them).
std::optional<BankConflicts> take_bank_conflicts();

// Judge side, at the end of main(): tells the worker to end and waits for it (at most a minute), so that its output
// and the summary of a tool wrapping it (compute-sanitizer) are written before the judge exits.
void shutdown();

// Judge side, from main() (judge_main.cpp): reads and removes --course-worker=PATH, each --course-worker-wrap=ARG
// (the words of the command that wraps the worker, in order) and --course-call-seconds=N from argv.
void configure_from_args(int* argc, char** argv);
// True in a judge program: its launchers run in the worker, and timing is the judge's wall clock (timing.h).
bool is_judge();

// ---- worker side ------------------------------------------------------------------------------------------------
// The generated table (labNN_worker_table.cpp) lists every launcher of the lab by its manifest name:
//   const course::remote::Launcher course_lab_launchers[] = {course::remote::launcher("matadd", &matadd), ...};
struct Arguments;  // the decoded arguments of one call (remote_worker.cpp)
struct Launcher {
  const char* name;
  bool (*invoke)(void* function, const Arguments& args, std::string* why);
  void* function;
};

bool next_pointer(const Arguments& args, std::size_t index, const void** out, std::string* why);
bool next_integer(const Arguments& args, std::size_t index, long long* out, std::string* why);
bool next_real(const Arguments& args, std::size_t index, double* out, std::string* why);
std::size_t argument_count(const Arguments& args);

template <class T>
bool decode(const Arguments& args, std::size_t index, T* out, std::string* why) {
  if constexpr (std::is_same_v<T, cudaStream_t>) {
    *out = nullptr;  // the default stream: the worker's own
    return true;
  } else if constexpr (std::is_pointer_v<T>) {
    const void* p = nullptr;
    if (!next_pointer(args, index, &p, why)) return false;
    *out = static_cast<T>(const_cast<void*>(p));
    return true;
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    long long v = 0;
    if (!next_integer(args, index, &v, why)) return false;
    *out = static_cast<T>(v);
    return true;
  } else {
    double v = 0.0;
    if (!next_real(args, index, &v, why)) return false;
    *out = static_cast<T>(v);
    return true;
  }
}

template <class... Params, std::size_t... I>
bool invoke_with(void (*f)(Params...), const Arguments& args, std::string* why, std::index_sequence<I...>) {
  std::tuple<std::decay_t<Params>...> values;
  if (!(decode(args, I, &std::get<I>(values), why) && ...)) return false;
  f(std::get<I>(values)...);
  return true;
}

template <class... Params>
Launcher launcher(const char* name, void (*f)(Params...)) {
  return {name,
          [](void* function, const Arguments& args, std::string* why) {
            if (argument_count(args) != sizeof...(Params)) {
              *why = "the call has " + std::to_string(argument_count(args)) + " arguments, the launcher " +
                     std::to_string(sizeof...(Params));
              return false;
            }
            return invoke_with(reinterpret_cast<void (*)(Params...)>(function), args, why,
                               std::index_sequence_for<Params...>{});
          },
          reinterpret_cast<void*>(f)};
}

// The worker's main loop (remote_worker.cpp's main() calls it with the generated table).
int serve(const Launcher* launchers, std::size_t count);

}  // namespace course::remote
