// The judge's end of the judge/worker split (course/remote.h): starts the worker, shares the buffers a call names,
// sends the call, and keeps the worker's report for run_launcher and take_bank_conflicts.
#include "course/remote.h"
#include "remote_memory.h"
#include "remote_wire.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

namespace course::remote {

namespace {

// Variables the worker may see (everything else, the seed included, stays in the judge).
constexpr const char* kWorkerEnvironment[] = {"PATH",
                                              "LANG",
                                              "LC_ALL",
                                              "CUDA_VISIBLE_DEVICES",
                                              "CUDA_DEVICE_ORDER",
                                              "COURSE_CPU_THREADS",
                                              "COURSE_CPU_STACK_KB",
                                              "COURSE_CPU_QUIET"};

struct Sent {
  std::uint64_t id;
  const void* probe;  // a pointer into it: the allocation is alive while it still exports with the same id
};

struct State {
  std::string worker;             // --course-worker=PATH
  std::vector<std::string> wrap;  // --course-worker-wrap=ARG, in order (the grader's sandbox command)
  pid_t pid = -1;
  int socket = -1;
  std::uint64_t sequence = 0;
  std::map<std::uint64_t, Sent> sent;  // allocations the worker has mapped, by id
  std::optional<Outcome> outcome;
  std::optional<BankConflicts> banks;
  bool judge = false;
  double call_seconds = 0.0;  // --course-call-seconds: the worker must answer within this (0: no limit)
  void (*report_timeout)(double) = nullptr;
  void (*report_death)(const std::string&) = nullptr;
  void (*report_answer)(double) = nullptr;
  bool gave_up = false;             // a call ran past the deadline: no further call is made
  int batch_left = 0;               // begin_batch: remote calls still to come in the batch (the last one sends it)
  int batch_calls = 0;              // remote calls made since begin_batch
  std::vector<wire::Message> held;  // the batch's calls not sent yet (all but its last)
};
State& state() {
  static State s;
  return s;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

[[noreturn]] void fail_setup(const std::string& why) { throw std::runtime_error("the lab's worker process: " + why); }

std::string describe_signal(int sig) {
  const char* name = strsignal(sig);
  return "it was killed by signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
}

// `wrapped`: the worker ran under the grader's sandbox, which exits with 128 + N when its program was killed by
// signal N (bubblewrap passes the status on that way).
std::string describe_status(int status, bool wrapped) {
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (wrapped && code > 128 && code < 128 + 65) return describe_signal(code - 128);
    return "it exited with status " + std::to_string(code);
  }
  if (WIFSIGNALED(status)) return describe_signal(WTERMSIG(status));
  return "it stopped";
}

// The worker died or broke the protocol: collect its exit status, forget it (the next call starts a new one).
// `ended`: the worker closed its end (it died on its own): it is given a moment to finish dying, so that its own
// status (a segmentation fault, an abort) is reported rather than the kill that follows.
std::string bury(bool ended = false) {
  State& s = state();
  if (s.socket >= 0) close(s.socket);
  s.socket = -1;
  s.sent.clear();
  std::string how = "it is gone";
  if (s.pid > 0) {
    int status = 0;
    pid_t got = 0;
    for (int i = 0; ended && i < 100 && (got = waitpid(s.pid, &status, WNOHANG)) == 0; ++i) usleep(20 * 1000);
    if (got != s.pid) {
      kill(s.pid, SIGKILL);
      got = waitpid(s.pid, &status, 0);
    }
    if (got == s.pid) how = describe_status(status, !s.wrap.empty());
  }
  s.pid = -1;
  return how;
}

// A launcher call during which the worker died: the call's failure, and the judge's report is told.
Outcome died_during_call() {
  State& s = state();
  const std::string how = bury(true);
  if (s.report_death) s.report_death(how);
  Outcome outcome;
  outcome.failure = "the process running your code ended during the call: " + how + ".";
  return outcome;
}

// Waits for the worker's next message, at most call_seconds. On a timeout the worker is stopped and `why` says so.
bool receive_in_time(wire::Message& m, std::string* why, bool* late) {
  State& s = state();
  *late = false;
  if (s.call_seconds > 0) {
    pollfd p{s.socket, POLLIN, 0};
    const int ms = static_cast<int>(s.call_seconds * 1000.0);
    int r;
    do r = poll(&p, 1, ms);
    while (r < 0 && errno == EINTR);
    if (r == 0) {
      *late = true;
      *why = "it did not answer within " + seconds_text(s.call_seconds);
      return false;
    }
  }
  return wire::receive(s.socket, m, nullptr, why);
}

void start() {
  State& s = state();
  if (s.worker.empty())
    fail_setup(
        "no worker program was named. The test programs of a lab are judges: run them through ctest, or "
        "pass --course-worker=PATH of the lab's worker program (the grader does).");
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) fail_setup("socketpair failed");
  std::vector<std::string> args = s.wrap;
  args.push_back(s.worker);
  std::vector<std::string> env;
  for (const char* name : kWorkerEnvironment)
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) fail_setup("fork failed");
  if (pid == 0) {
    // The child: socket on fd 3, stdin from /dev/null, stdout/stderr shared with the judge (the student's printf);
    // nothing else open (the judge's report pipe above all), and it dies with the judge.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(pair[1], 3) != 3) _exit(127);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    closefrom(4);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(pair[1]);
  s.pid = pid;
  s.socket = pair[0];
  wire::Message hello{};
  std::string why;
  bool late = false;
  if (!receive_in_time(hello, &why, &late) || hello.type != wire::Type::hello)
    fail_setup("it did not start (" + (late ? why + "; " : std::string()) + bury() + "): " + s.worker);
}

wire::Message message(wire::Type type) {
  wire::Message m;
  std::memset(&m, 0, sizeof m);
  m.magic = wire::kMagic;
  m.type = type;
  return m;
}

// Tells the worker about freed allocations, then makes sure it has mapped the one `p` points into.
bool share(const void* p, wire::Arg* arg, std::string* why) {
  State& s = state();
  wire::Allocation a{};
  int fd = -1;
  std::uint64_t offset = 0;
  if (!export_pointer(p, &a, &fd, &offset)) {
    *why = "a pointer argument is not in a device buffer of the test";
    return false;
  }
  arg->kind = wire::ArgKind::pointer;
  arg->allocation = a.id;
  arg->offset = offset;
  if (s.sent.count(a.id)) return true;
  wire::Message m = message(wire::Type::allocation);
  m.allocation = a;
  if (!wire::send(s.socket, m, fd)) {
    *why = "the worker is gone";
    return false;
  }
  s.sent[a.id] = Sent{a.id, p};
  return true;
}

void forget_freed() {
  State& s = state();
  for (auto it = s.sent.begin(); it != s.sent.end();) {
    wire::Allocation a{};
    int fd = -1;
    std::uint64_t offset = 0;
    if (export_pointer(it->second.probe, &a, &fd, &offset) && a.id == it->first) {
      ++it;
      continue;
    }
    wire::Message m = message(wire::Type::forget);
    m.forget = it->first;
    wire::send(s.socket, m);
    it = s.sent.erase(it);
  }
}

void keep_banks(const wire::Outcome& o) {
  if (!o.check_mode) return;
  State& s = state();
  if (!s.banks) s.banks.emplace();
  BankConflicts& b = *s.banks;
  b.available = true;
  const int lines = o.bank_line_count < 0 ? 0 : (o.bank_line_count > wire::kMaxBankLines ? 0 : o.bank_line_count);
  for (int i = 0; i < lines; ++i) {
    const wire::BankLine& l = o.bank_lines[i];
    b.lines.push_back({wire::printable(l.file, sizeof l.file), l.line, wire::printable(l.variable, sizeof l.variable),
                       l.store != 0, l.requests, l.wavefronts, l.max_degree});
  }
  b.load_requests += o.load_requests;
  b.load_wavefronts += o.load_wavefronts;
  b.store_requests += o.store_requests;
  b.store_wavefronts += o.store_wavefronts;
  if (o.max_degree > b.max_degree) b.max_degree = o.max_degree;
}

void await_outcome(const wire::Message& m, std::uint64_t sequence);

// Sends the call `last` and the held calls of its batch before it (course/remote.h: one batch_args message, then the
// call with repeat = their number + 1), and keeps the answer. The worker runs them back to back.
void send_batch(wire::Message& last) {
  State& s = state();
  if (!s.held.empty()) {
    static wire::Message batch = message(wire::Type::batch_args);  // large: not on the stack
    batch.batch.count = static_cast<std::uint32_t>(s.held.size());
    for (std::size_t i = 0; i < s.held.size(); ++i)
      std::memcpy(batch.batch.args[i], s.held[i].call.args, sizeof batch.batch.args[i]);
    last.call.repeat = static_cast<std::uint32_t>(s.held.size() + 1);
    s.held.clear();
    if (!wire::send(s.socket, batch)) {
      s.outcome = died_during_call();
      return;
    }
  }
  await_outcome(last, last.call.sequence);
}

// Sends the call `m` and keeps the worker's answer as its outcome (and that of the other calls of its batch).
void await_outcome(const wire::Message& m, std::uint64_t sequence) {
  State& s = state();
  Outcome outcome;
  wire::Message reply{};
  std::string why;
  bool late = false;
  const auto sent_at = std::chrono::steady_clock::now();
  const bool answered = wire::send(s.socket, m) && receive_in_time(reply, &why, &late);
  if (answered && s.report_answer)
    s.report_answer(std::chrono::duration<double>(std::chrono::steady_clock::now() - sent_at).count());
  if (!answered) {
    if (late) {
      outcome.failure = "your launcher did not return within " + seconds_text(s.call_seconds) +
                        " (a kernel or host loop that never ends, or a wait that is never satisfied); the process "
                        "running it was stopped.";
      outcome.timed_out = true;
      s.gave_up = true;
      bury();
      if (s.report_timeout) s.report_timeout(s.call_seconds);
    } else {
      outcome = died_during_call();
    }
  } else if (reply.type != wire::Type::outcome || reply.outcome.sequence != sequence) {
    bury();
    outcome.failure = "the process running your code answered out of turn (its protocol was broken).";
  } else {
    const wire::Outcome& o = reply.outcome;
    if (o.protocol_error) {
      outcome.failure =
          "the process running your code could not run the call: " + wire::printable(o.text, sizeof o.text, 500);
    } else {
      outcome.launch = static_cast<cudaError_t>(o.launch_error);
      outcome.run = static_cast<cudaError_t>(o.run_error);
      outcome.findings = wire::printable(o.text, sizeof o.text);
      keep_banks(o);
    }
  }
  s.outcome = outcome;
}

}  // namespace

void on_call_timeout(void (*report)(double seconds)) { state().report_timeout = report; }
void on_worker_death(void (*report)(const std::string& how)) { state().report_death = report; }
void on_answer(void (*report)(double seconds)) { state().report_answer = report; }

void shutdown() {
  State& s = state();
  if (s.pid <= 0) return;
  if (s.socket >= 0) {
    wire::send(s.socket, message(wire::Type::bye));
    close(s.socket);
    s.socket = -1;
  }
  // The worker ends on its own: its output is flushed and a tool wrapping it (compute-sanitizer) prints its summary
  // as it exits. One that does not end within a minute is stopped.
  for (int i = 0; i < 600; ++i) {
    int status = 0;
    if (waitpid(s.pid, &status, WNOHANG) == s.pid) {
      s.pid = -1;
      s.sent.clear();
      return;
    }
    usleep(100 * 1000);
  }
  bury();
}

bool is_judge() { return state().judge; }

void begin_batch(int n) {
  State& s = state();
  // At most wire::kMaxBatch calls: the held ones must fit in one batch_args message.
  s.batch_left = n < 1 ? 1 : (n > static_cast<int>(wire::kMaxBatch) ? static_cast<int>(wire::kMaxBatch) : n);
  s.batch_calls = 0;
}

void warm_worker() {
  State& s = state();
  if (s.socket < 0) return;  // no worker yet: the first call starts it
  wire::Message m = message(wire::Type::warm);
  m.forget = ++s.sequence;
  wire::Message reply{};
  std::string why;
  bool late = false;
  if (!wire::send(s.socket, m) || !receive_in_time(reply, &why, &late) || reply.type != wire::Type::outcome ||
      reply.outcome.sequence != m.forget)
    bury();  // the next call starts a new worker and fails or succeeds on its own
}

int end_batch() {
  State& s = state();
  const int calls = s.batch_calls;
  s.batch_left = 0;
  s.batch_calls = 0;
  if (!s.held.empty()) {  // the batch's last launch made no remote call: send what was held
    wire::Message last = s.held.back();
    s.held.pop_back();
    send_batch(last);
  }
  return calls;
}

void configure_from_args(int* argc, char** argv) {
  State& s = state();
  s.judge = true;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--course-worker=", 0) == 0) {
      s.worker = a.substr(16);
    } else if (a.rfind("--course-worker-wrap=", 0) == 0) {
      s.wrap.push_back(a.substr(21));
    } else if (a.rfind("--course-call-seconds=", 0) == 0) {
      char* end = nullptr;
      const double v = std::strtod(a.c_str() + 22, &end);
      if (end == a.c_str() + 22 || *end != '\0' || !(v >= 0.0))
        throw std::invalid_argument("--course-call-seconds wants a number of seconds, not '" + a.substr(22) + "'");
      s.call_seconds = v;
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  argv[out] = nullptr;
}

void call_values(const std::string& launcher, const std::vector<Value>& args) {
  State& s = state();
  if (s.gave_up) {
    // A launcher that never returned once would again: every later call of this program fails at once, so that a
    // hang costs one deadline, not one per test until the program's time runs out (measured: 123 s a lab).
    Outcome outcome;
    outcome.failure = "not run: an earlier call of your launcher did not return within " +
                      seconds_text(s.call_seconds) + ", and this test program stopped calling it.";
    s.held.clear();
    s.batch_left = 0;
    s.outcome = outcome;
    return;
  }
  if (s.socket < 0) start();
  wire::Message m = message(wire::Type::call);
  wire::Call& c = m.call;
  c.sequence = ++s.sequence;
  c.repeat = 1;
  wire::copy_text(c.launcher, sizeof c.launcher, launcher);
  if (args.size() > static_cast<std::size_t>(wire::kMaxArgs)) throw std::invalid_argument("too many arguments");
  c.arg_count = static_cast<std::uint32_t>(args.size());
  forget_freed();
  std::string why;
  for (std::size_t i = 0; i < args.size(); ++i) {
    wire::Arg& a = c.args[i];
    switch (args[i].kind) {
      case Value::Kind::integer:
        a.kind = wire::ArgKind::integer;
        a.integer = args[i].integer;
        break;
      case Value::Kind::real:
        a.kind = wire::ArgKind::real;
        a.real = args[i].real;
        break;
      case Value::Kind::default_stream:
        if (args[i].pointer != nullptr)
          throw std::invalid_argument(
              "the tests pass stream 0 to a lab's launcher; a remote call cannot carry another");
        a.kind = wire::ArgKind::default_stream;
        break;
      case Value::Kind::pointer:
        if (args[i].pointer == nullptr) {
          a.kind = wire::ArgKind::null_pointer;
        } else if (!share(args[i].pointer, &a, &why)) {
          throw std::invalid_argument(launcher + ": " + why);
        }
        break;
    }
  }
  if (s.batch_left > 0) {
    ++s.batch_calls;
    if (--s.batch_left > 0) {  // not the batch's last call: held, and sent with it
      if (!s.held.empty() && std::strcmp(s.held.front().call.launcher, c.launcher) != 0)
        throw std::logic_error("a timed batch calls one launcher; it also called " + launcher);
      s.held.push_back(m);
      return;
    }
  }
  send_batch(m);
}

std::optional<Outcome> take_outcome() {
  std::optional<Outcome> o;
  o.swap(state().outcome);
  return o;
}

std::optional<BankConflicts> take_bank_conflicts() {
  std::optional<BankConflicts> b;
  b.swap(state().banks);
  return b;
}

}  // namespace course::remote
