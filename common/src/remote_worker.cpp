// The worker's end of the judge/worker split (course/remote.h): maps the judge's buffers, runs each call it receives
// on them and reports what the launch did. It decides nothing: the judge checks the outputs.
#include "course/remote.h"
#include "findings.h"
#include "remote_memory.h"
#include "remote_wire.h"

#include <unistd.h>

#include <cstring>
#include <string>

#if defined(COURSE_BACKEND_CPU)
#include <course_cpu/diagnostics.h>
#include <course_cpu/sharing.h>
#endif

namespace course::remote {

struct Arguments {
  const wire::Arg* args;
  std::uint32_t count;
};

std::size_t argument_count(const Arguments& args) { return args.count; }

namespace {
const wire::Arg* arg_at(const Arguments& args, std::size_t i, wire::ArgKind kind, std::string* why) {
  if (i >= args.count) {
    *why = "argument " + std::to_string(i) + " is missing";
    return nullptr;
  }
  const wire::Arg& a = args.args[i];
  if (a.kind != kind && !(kind == wire::ArgKind::pointer && a.kind == wire::ArgKind::null_pointer)) {
    *why = "argument " + std::to_string(i) + " has the wrong kind";
    return nullptr;
  }
  return &a;
}
}  // namespace

bool next_pointer(const Arguments& args, std::size_t i, const void** out, std::string* why) {
  const wire::Arg* a = arg_at(args, i, wire::ArgKind::pointer, why);
  if (a == nullptr) return false;
  if (a->kind == wire::ArgKind::null_pointer) {
    *out = nullptr;
    return true;
  }
  *out = local_address(a->allocation, a->offset);
  if (*out == nullptr) *why = "argument " + std::to_string(i) + " names a buffer this process has not mapped";
  return *out != nullptr;
}

bool next_integer(const Arguments& args, std::size_t i, long long* out, std::string* why) {
  const wire::Arg* a = arg_at(args, i, wire::ArgKind::integer, why);
  if (a) *out = a->integer;
  return a != nullptr;
}

bool next_real(const Arguments& args, std::size_t i, double* out, std::string* why) {
  const wire::Arg* a = arg_at(args, i, wire::ArgKind::real, why);
  if (a) *out = a->real;
  return a != nullptr;
}

namespace {

constexpr int kSocket = 3;

void add_banks(wire::Outcome& o) {
#if defined(COURSE_BACKEND_CPU)
  const course_cpu::BankConflictReport r = course_cpu::take_bank_conflicts();
  o.check_mode = course_cpu::check_mode_active() ? 1 : 0;
  int n = 0;
  for (const auto& l : r.lines) {
    if (n == wire::kMaxBankLines) break;
    wire::BankLine& b = o.bank_lines[n++];
    wire::copy_text(b.file, sizeof b.file, l.file);
    wire::copy_text(b.variable, sizeof b.variable, l.variable);
    b.line = l.line;
    b.store = l.store ? 1 : 0;
    b.requests = l.requests;
    b.wavefronts = l.wavefronts;
    b.max_degree = l.max_degree;
  }
  o.bank_line_count = n;
  o.load_requests = r.load_requests;
  o.load_wavefronts = r.load_wavefronts;
  o.store_requests = r.store_requests;
  o.store_wavefronts = r.store_wavefronts;
  o.max_degree = r.max_degree;
#else
  (void)o;
#endif
}

// Runs one call: the launcher `repeat` times back to back (a timed batch: the calls before the last take their
// arguments from `batch`), then synchronizes the device (every stream) and fills `reply`.
void run_call(const Launcher* launchers, std::size_t count, const wire::Call& call, const std::string& pending,
              const wire::BatchArgs* batch, wire::Message& reply) {
  wire::Outcome& o = reply.outcome;
  o.sequence = call.sequence;
  const std::string name = wire::printable(call.launcher, sizeof call.launcher, sizeof call.launcher);
  const Launcher* found = nullptr;
  for (std::size_t i = 0; i < count; ++i)
    if (name == launchers[i].name) found = &launchers[i];
  std::string why = pending;
  if (why.empty() && found == nullptr) why = "no launcher named " + name;
  if (why.empty() && call.arg_count > static_cast<std::uint32_t>(wire::kMaxArgs)) why = "too many arguments";
  const std::uint32_t repeat = call.repeat;
  if (why.empty() && (repeat < 1 || repeat > wire::kMaxBatch)) why = "a batch of " + std::to_string(repeat) + " calls";
  if (why.empty() && repeat > 1 && (batch == nullptr || batch->count != repeat - 1))
    why = "a batch without the arguments of its first calls";
  (void)cudaGetLastError();  // nothing left over from an earlier call counts against this one
  for (std::uint32_t i = 0; i < repeat && why.empty(); ++i) {
    const Arguments args{i + 1 < repeat ? batch->args[i] : call.args, call.arg_count};
    if (!found->invoke(found->function, args, &why) && why.empty()) why = "bad arguments";
  }
  if (!why.empty()) {
    o.protocol_error = 1;
    wire::copy_text(o.text, sizeof o.text, why);
    return;
  }
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t run = launch == cudaSuccess ? cudaDeviceSynchronize() : launch;
  o.launch_error = static_cast<std::int32_t>(launch);
  o.run_error = static_cast<std::int32_t>(run);
  wire::copy_text(o.text, sizeof o.text, cpu_backend_findings());
  add_banks(o);
}

}  // namespace

int serve(const Launcher* launchers, std::size_t count) {
#if defined(COURSE_BACKEND_CPU)
  course_cpu::use_worker_arena();  // the judge's buffers arrive at addresses of their own
#endif
  wire::Message out{};
  std::memset(&out, 0, sizeof out);
  out.magic = wire::kMagic;
  out.type = wire::Type::hello;
  if (!wire::send(kSocket, out)) return 2;  // not started by a judge
  std::string pending;                      // an allocation that could not be mapped fails the next call
  static wire::BatchArgs batch;             // the arguments of the next call's batch (batch_args)
  bool have_batch = false;
  for (;;) {
    static wire::Message in;
    int fd = -1;
    std::string why;
    if (!wire::receive(kSocket, in, &fd, &why)) return 0;  // the judge is done (or gone)
    switch (in.type) {
      case wire::Type::allocation:
        if (fd < 0) {
          pending = "a device buffer arrived without its descriptor";
        } else if (!import_allocation(in.allocation, fd, &why)) {
          pending = why;
        }
        break;
      case wire::Type::forget:
        forget_allocation(in.forget);
        break;
      case wire::Type::call: {
        static wire::Message reply;
        std::memset(&reply, 0, sizeof reply);
        reply.magic = wire::kMagic;
        reply.type = wire::Type::outcome;
        run_call(launchers, count, in.call, pending, have_batch ? &batch : nullptr, reply);
        pending.clear();
        have_batch = false;
        if (!wire::send(kSocket, reply)) return 0;
        break;
      }
      case wire::Type::warm: {
        // A memset of the worker's own (no student code): the GPU switches to this process's context now, not inside
        // the judge's timed batch that follows (course/remote.h: warm_worker).
        static void* scratch = nullptr;
        if (scratch == nullptr) (void)cudaMalloc(&scratch, 256);
        if (scratch != nullptr) (void)cudaMemsetAsync(scratch, 0, 256, nullptr);
        (void)cudaDeviceSynchronize();
        (void)cudaGetLastError();
        static wire::Message reply;
        std::memset(&reply, 0, sizeof reply);
        reply.magic = wire::kMagic;
        reply.type = wire::Type::outcome;
        reply.outcome.sequence = in.forget;  // the sequence number travels in the `forget` field
        if (!wire::send(kSocket, reply)) return 0;
        break;
      }
      case wire::Type::batch_args:
        batch = in.batch;
        have_batch = batch.count < wire::kMaxBatch;
        break;
      case wire::Type::bye:
        return 0;
      default:
        if (fd >= 0) close(fd);
        return 3;
    }
  }
}

}  // namespace course::remote
