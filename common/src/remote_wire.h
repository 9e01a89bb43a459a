// The judge/worker protocol (course/remote.h): fixed-size messages on a SOCK_SEQPACKET socket pair, so every read is
// one whole message and a short or oversized one is a protocol error, never a partial parse. On the CPU backend a
// message may carry one file descriptor (a device allocation's memfd) as SCM_RIGHTS.
//
// Everything the worker sends is untrusted: the judge checks each field's range before use and treats the text as
// text (printable characters only, bounded length).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace course::remote::wire {

constexpr std::uint32_t kMagic = 0x43524d31;  // "CRM1"
constexpr int kMaxArgs = 16;
constexpr std::size_t kNameBytes = 64;
constexpr std::size_t kTextBytes = 8192;
constexpr int kMaxBankLines = 64;
constexpr std::uint32_t kMaxBatch = 64;  // calls in one timed batch

enum class Type : std::uint32_t {
  hello = 1,       // worker -> judge, once: it is ready
  allocation = 2,  // judge -> worker: map this device allocation (CPU: memfd attached; GPU: IPC handle)
  forget = 3,      // judge -> worker: the allocation was freed
  call = 4,        // judge -> worker: run one launcher
  outcome = 5,     // worker -> judge: what the call did
  bye = 6,         // judge -> worker: exit
  batch_args = 7,  // judge -> worker: the arguments of a timed batch's calls before its last (the call message)
  warm = 8,        // judge -> worker: put a little GPU work of the worker's own through and answer (before a batch)
};

enum class ArgKind : std::uint32_t { integer = 1, real = 2, pointer = 3, null_pointer = 4, default_stream = 5 };

struct Arg {
  ArgKind kind;
  std::uint32_t pad;
  std::int64_t integer;
  double real;
  std::uint64_t allocation;  // pointer: the allocation's id ...
  std::uint64_t offset;      // ... and the byte offset into it
};

struct Allocation {
  std::uint64_t id;
  std::uint64_t begin;     // CPU: the address of the first byte in both processes
  std::uint64_t size;      // bytes requested
  std::uint64_t map_base;  // CPU: the mapping (guard page included)
  std::uint64_t map_len;
  unsigned char ipc_handle[64];  // GPU: cudaIpcMemHandle_t of the allocation's base
};

struct Call {
  std::uint64_t sequence;
  char launcher[kNameBytes];  // e.g. "tiled_gemm<32>", NUL-terminated
  std::uint32_t arg_count;
  std::uint32_t repeat;  // 1; or a timed batch of this many calls of the launcher, back to back: the first repeat - 1
                         // with the arguments of the batch_args message before, the last with these
  Arg args[kMaxArgs];
};

struct BatchArgs {
  std::uint32_t count;  // calls described (the batch's size minus one)
  std::uint32_t pad;
  Arg args[kMaxBatch - 1][kMaxArgs];
};

struct BankLine {
  char file[128];
  char variable[64];
  std::int32_t line;
  std::int32_t store;
  std::uint64_t requests;
  std::uint64_t wavefronts;
  std::int32_t max_degree;
  std::int32_t pad;
};

struct Outcome {
  std::uint64_t sequence;
  std::int32_t launch_error;  // cudaGetLastError() right after the launcher returned
  std::int32_t run_error;     // cudaDeviceSynchronize() after it (or the launch error)
  std::int32_t check_mode;    // the worker ran check-mode kernels (bank conflicts below are meaningful)
  std::int32_t bank_line_count;
  std::uint64_t load_requests, load_wavefronts, store_requests, store_wavefronts;
  std::int32_t max_degree;
  std::int32_t protocol_error;  // the worker could not run the call at all (text says why)
  BankLine bank_lines[kMaxBankLines];
  char text[kTextBytes];  // check-mode findings, one "\n  [category] file:line: message" per finding; or why
};

struct Message {
  std::uint32_t magic;
  Type type;
  union {
    Allocation allocation;
    std::uint64_t forget;
    Call call;
    BatchArgs batch;
    Outcome outcome;
  };
};

// One message; `fd` >= 0 is attached (SCM_RIGHTS). Returns false when the peer is gone.
bool send(int socket, const Message& message, int fd = -1);
// One message (and the descriptor attached, or -1). Returns false on end of file or a malformed message; `why` then
// says which.
bool receive(int socket, Message& message, int* fd, std::string* why);

// `text` with everything but printable ASCII, newline and tab replaced by '?', cut to `limit` bytes.
std::string printable(const char* text, std::size_t capacity, std::size_t limit = kTextBytes);
// Copies `text` into a fixed field, NUL-terminated, cut to fit.
void copy_text(char* field, std::size_t capacity, const std::string& text);

}  // namespace course::remote::wire
