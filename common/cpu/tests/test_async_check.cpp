// Self-tests of check mode: asynchronous copies into shared memory (<cuda_pipeline.h>,
// <cooperative_groups/memcpy_async.h>, <cuda/pipeline>, <cuda/barrier>): what a wait must come before,
// reported at the right line with the fix of the API used.
#include "kernels_async.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <tuple>

// Asynchronous copies (kernels_async.cu): the correct double-buffered sum reports nothing; reading without the wait,
// reading the buffer being filled and starting the next copy before the barrier are each reported at their lines.
TEST(CheckMode, AsynchronousCopies) {
  constexpr int kTiles = 5;
  const std::vector<float> host = iota_floats(64 * kTiles);
  DeviceBuffer<float> in(host), out(64);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_pipelined_sum(in.ptr, out.ptr, kTiles, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> expected = expected_pipelined_sums(host, kTiles);
  EXPECT_EQ(out.get(), expected);

  // No wait: the reads come before the copies they need. Bug 1 also starts copies into words whose earlier copy was
  // never waited for (@async-next).
  const int read_line = line_of("kernels_async.cu", "@async-read");
  ASSERT_EQ(run_pipelined_sum(in.ptr, out.ptr, kTiles, 1), cudaSuccess);
  auto d = of_category(course_cpu::take_diagnostics(), "async-copy");
  ASSERT_EQ(d.size(), 2u);
  const auto found_read = std::find_if(d.begin(), d.end(), [&](const auto& x) { return x.line == read_line; });
  ASSERT_NE(found_read, d.end()) << d[0].message;
  EXPECT_NE(found_read->message.find("reads buf[0][1], which an asynchronous copy started by thread (1,0)"),
            std::string::npos)
      << found_read->message;
  EXPECT_NE(found_read->message.find("__pipeline_wait_prior"), std::string::npos) << found_read->message;
  EXPECT_EQ(d[0].line + d[1].line - read_line, line_of("kernels_async.cu", "@async-next"));

  // Reading the buffer being filled: here each thread waits for its own copies before the next barrier, so what the
  // others read is a race with that copy (on a GPU it may also be in flight: either way the read is unordered).
  ASSERT_EQ(run_pipelined_sum(in.ptr, out.ptr, kTiles, 3), cudaSuccess);
  d = of_category(course_cpu::take_diagnostics(), "race");
  ASSERT_FALSE(d.empty());
  EXPECT_TRUE(std::any_of(d.begin(), d.end(), [&](const auto& x) { return x.line == read_line; })) << d[0].message;

  ASSERT_EQ(run_pipelined_sum(in.ptr, out.ptr, kTiles, 2), cudaSuccess);
  const auto all = course_cpu::take_diagnostics();
  const auto races = of_category(all, "race");
  ASSERT_FALSE(races.empty());
  const int early = line_of("kernels_async.cu", "@async-early"), read = line_of("kernels_async.cu", "@async-read");
  bool found = false;
  for (const auto& d : races)
    found = found || (d.line == early && d.message.find("line " + std::to_string(read)) != std::string::npos) ||
            (d.line == read && d.message.find("line " + std::to_string(early)) != std::string::npos);
  EXPECT_TRUE(found) << races[0].message;
}

// cooperative_groups::memcpy_async is checked like the primitives it is made of: the correct kernel reports nothing,
// and without cg::wait_prior / cg::wait the reads meet copies still in flight, reported at the read with the
// cooperative-groups fix; copies at every relative alignment report nothing and land right.
TEST(CheckMode, GroupAsynchronousCopies) {
  constexpr int kTiles = 5;
  const std::vector<float> host = iota_floats(64 * kTiles);
  DeviceBuffer<float> in(host), out(64);
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_group_pipelined_sum(in.ptr, out.ptr, kTiles, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  const std::vector<float> expected = expected_pipelined_sums(host, kTiles);
  EXPECT_EQ(out.get(), expected);

  ASSERT_EQ(run_group_pipelined_sum(in.ptr, out.ptr, kTiles, 1), cudaSuccess);
  const auto d = of_category(course_cpu::take_diagnostics(), "async-copy");
  // (and the next tile's copies write words whose earlier copy was never waited for, at the memcpy_async line)
  const int read_line = line_of("kernels_async.cu", "@group-read");
  const auto read = std::find_if(d.begin(), d.end(), [&](const auto& x) { return x.line == read_line; });
  ASSERT_NE(read, d.end()) << (d.empty() ? std::string("no async-copy finding") : d[0].message);
  EXPECT_NE(read->message.find("reads buf[0][1], which an asynchronous copy (cooperative_groups::memcpy_async)"),
            std::string::npos)
      << read->message;
  EXPECT_NE(read->message.find("cg::wait(group)"), std::string::npos) << read->message;

  // A thread's own cuda::pipeline: both waits report nothing and sum right; without them, the reads are reported
  // with the pipeline's fix.
  for (int form : {0, 2}) {
    ASSERT_EQ(run_thread_pipeline_sum(in.ptr, out.ptr, kTiles, form), cudaSuccess);
    EXPECT_TRUE(course_cpu::take_diagnostics().empty()) << "form " << form;
    EXPECT_EQ(out.get(), expected) << "form " << form;
  }
  ASSERT_EQ(run_thread_pipeline_sum(in.ptr, out.ptr, kTiles, 1), cudaSuccess);
  const auto p = of_category(course_cpu::take_diagnostics(), "async-copy");
  const int pipe_line = line_of("kernels_async.cu", "@pipe-read");
  const auto pipe_read = std::find_if(p.begin(), p.end(), [&](const auto& x) { return x.line == pipe_line; });
  ASSERT_NE(pipe_read, p.end()) << (p.empty() ? std::string("no async-copy finding") : p[0].message);
  EXPECT_NE(pipe_read->message.find("(cuda::memcpy_async)"), std::string::npos) << pipe_read->message;
  EXPECT_NE(pipe_read->message.find("pipe.consumer_wait()"), std::string::npos) << pipe_read->message;

  std::vector<unsigned char> bytes(320);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(1 + i % 251);
  DeviceBuffer<unsigned char> src(bytes), dst(320);
  for (int offset : {0, 1, 4, 8})
    for (int at : {0, 4, 16})
      for (int n : {3, 16, 17, 100}) {
        ASSERT_EQ(run_group_copy_bytes(src.ptr, dst.ptr, offset, at, n), cudaSuccess);
        EXPECT_TRUE(course_cpu::take_diagnostics().empty()) << offset << " " << at << " " << n;
        std::vector<unsigned char> want(320, 0);
        for (int i = 0; i < n; ++i) want[at + i] = bytes[offset + i];
        ASSERT_EQ(dst.get(), want) << "offset " << offset << ", at " << at << ", " << n << " bytes";
      }
}

namespace {

using SumKernel = cudaError_t (*)(const float* in, float* out, int tiles, int form);
constexpr int kSumTiles = 5;

// The correct forms of a double-buffered sum (kernels_async.h) report nothing and store the sums.
void expect_clean_sums(SumKernel run, std::initializer_list<int> forms) {
  const std::vector<float> host = iota_floats(64 * kSumTiles);
  DeviceBuffer<float> in(host), out(64);
  course_cpu::take_diagnostics();
  for (int form : forms) {
    ASSERT_EQ(run(in.ptr, out.ptr, kSumTiles, form), cudaSuccess);
    const auto d = course_cpu::take_diagnostics();
    EXPECT_TRUE(d.empty()) << "form " << form << ": " << d[0].message;
    EXPECT_EQ(out.get(), expected_pipelined_sums(host, kSumTiles)) << "form " << form;
  }
}

// What form `form` of a sum reports: the launch's error and its findings of `category`.
std::vector<course_cpu::Diagnostic> findings_of(SumKernel run, int form, const char* category, cudaError_t* error) {
  DeviceBuffer<float> in(iota_floats(64 * kSumTiles)), out(64);
  course_cpu::take_diagnostics();
  *error = run(in.ptr, out.ptr, kSumTiles, form);
  return of_category(course_cpu::take_diagnostics(), category);
}

// The async-copy finding at the line of `marker` of form `form`, which reads before its wait ("" if there is none).
std::string early_read(SumKernel run, int form, const char* marker) {
  cudaError_t error = cudaSuccess;
  const auto d = findings_of(run, form, "async-copy", &error);
  EXPECT_EQ(error, cudaSuccess);
  const int line = line_of("kernels_async.cu", marker);
  const auto read = std::find_if(d.begin(), d.end(), [&](const auto& x) { return x.line == line; });
  return read == d.end() ? std::string() : read->message;
}

}  // namespace

// A cuda::barrier of the block: both forms of arrival report nothing and sum right; reading before the arrival meets
// copies still in flight, reported with the barrier's fix; a barrier set up for half the block completes its phase
// before the other half has copied (a read of a word no thread wrote yet); a barrier never set up is barrier
// divergence at its first use (a copy started with it), and copying with no __syncthreads() after init() a race.
TEST(CheckMode, BlockBarriers) {
  expect_clean_sums(run_barrier_sum, {0, 1});
  const std::string read = early_read(run_barrier_sum, 2, "@barrier-read");
  ASSERT_FALSE(read.empty()) << "no async-copy finding at the read";
  EXPECT_NE(read.find("(cuda::memcpy_async) started by thread (1,0)"), std::string::npos) << read;
  EXPECT_NE(read.find("the phase of the cuda::barrier"), std::string::npos) << read;
  EXPECT_NE(read.find("bar.arrive_and_wait()"), std::string::npos) << read;
  // A thread's own copy is not complete before its wait either.
  EXPECT_FALSE(early_read(run_barrier_sum, 5, "@barrier-own").empty())
      << "no async-copy finding between arrive and wait";

  cudaError_t error = cudaSuccess;
  const auto half = findings_of(run_barrier_sum, 3, "uninitialized-shared-read", &error);
  ASSERT_FALSE(half.empty()) << "a barrier of half the block: no finding";
  EXPECT_EQ(half[0].line, line_of("kernels_async.cu", "@barrier-read"));
  const auto never = findings_of(run_barrier_sum, 4, "barrier-divergence", &error);
  EXPECT_NE(error, cudaSuccess);
  ASSERT_FALSE(never.empty());
  EXPECT_EQ(never[0].line, line_of("kernels_async.cu", "@barrier-copy"));
  EXPECT_NE(never[0].message.find("starts a cuda::memcpy_async with a cuda::barrier at line " +
                                  std::to_string(line_of("kernels_async.cu", "@barrier-copy")) +
                                  " that init() did not set up in this block"),
            std::string::npos)
      << never[0].message;
  // Copies in init()'s barrier interval: a race of every other thread, at its copy, naming init()'s line.
  const auto early_init = findings_of(run_barrier_sum, 6, "race", &error);
  ASSERT_FALSE(early_init.empty()) << "no race between init() and the copies";
  EXPECT_EQ(early_init[0].line, line_of("kernels_async.cu", "@barrier-copy"));
  EXPECT_NE(early_init[0].message.find("set up with init() at line " +
                                       std::to_string(line_of("kernels_async.cu", "@barrier-init"))),
            std::string::npos)
      << early_init[0].message;
}

// Producers and consumers with cuda::barriers, the threads waiting at different lines or only arriving: plain stores
// and cuda::memcpy_async with arrive(32) report nothing and sum right; consumers that do not wait read words no
// producer wrote yet; consumers that never free the buffers leave every thread waiting for a phase that cannot
// complete, reported at the producers' wait with the consumers' line.
TEST(CheckMode, ProducerConsumerBarriers) {
  expect_clean_sums(run_producer_consumer_sum, {0, 1});
  cudaError_t error = cudaSuccess;
  const auto early = findings_of(run_producer_consumer_sum, 2, "uninitialized-shared-read", &error);
  ASSERT_FALSE(early.empty()) << "consumers that do not wait: no finding";
  EXPECT_EQ(early[0].line, line_of("kernels_async.cu", "@pc-read"));
  const auto stuck = findings_of(run_producer_consumer_sum, 3, "barrier-divergence", &error);
  EXPECT_NE(error, cudaSuccess);
  ASSERT_FALSE(stuck.empty());
  EXPECT_EQ(stuck[0].line, line_of("kernels_async.cu", "@pc-refill"));
  const std::string filled = std::to_string(line_of("kernels_async.cu", "@pc-filled"));
  for (const std::string& part :
       std::vector<std::string>{"threads 0..63 wait at line", "still expects 64 of its 128 arrivals",
                                "threads 64..127 wait for a phase at line " + filled, "the block hangs"})
    EXPECT_NE(stuck[0].message.find(part), std::string::npos) << part << " | " << stuck[0].message;
}

// Copies started with a cuda::barrier join its current phase, whoever arrives: a warp's group copy with its lane 0
// arriving 32 times (waiting for the token, the parity, or polling), and a copy by a lane that the barrier does not
// count, report nothing and sum right. Only a wait tells that the copies have landed: a read between the last arrival
// and its wait, or after a phase no thread waited for, is reported. A block stopped with copies pending leaves no mark
// behind for the next launch; arrive(0) is reported as such. A lane's copy that nothing orders before the phase's
// arrivals is a race (it may join the next phase); a token two phases old waits for the current phase, as on a GPU.
TEST(CheckMode, WarpBarriers) {
  expect_clean_sums(run_warp_barrier_sum, {0, 1, 5, 6, 9, 11, 12, 13});
  const std::string own = early_read(run_warp_barrier_sum, 2, "@warp-bar-own");
  ASSERT_FALSE(own.empty()) << "no async-copy finding between the last arrival and its wait";
  EXPECT_NE(own.find("the phase of the cuda::barrier"), std::string::npos) << own;
  EXPECT_FALSE(early_read(run_warp_barrier_sum, 7, "@warp-bar-read").empty())
      << "no async-copy finding after a phase that no thread waited for";
  cudaError_t error = cudaSuccess;
  const auto stuck = findings_of(run_warp_barrier_sum, 3, "barrier-divergence", &error);
  EXPECT_NE(error, cudaSuccess);
  ASSERT_FALSE(stuck.empty());
  EXPECT_EQ(stuck[0].line, line_of("kernels_async.cu", "@warp-bar-wait"));
  EXPECT_NE(stuck[0].message.find("still expects 1 of its 33 arrivals"), std::string::npos) << stuck[0].message;
  expect_clean_sums(run_warp_barrier_sum, {0});
  const auto zero = findings_of(run_warp_barrier_sum, 4, "barrier-divergence", &error);
  EXPECT_NE(error, cudaSuccess);
  ASSERT_FALSE(zero.empty());
  EXPECT_EQ(zero[0].line, line_of("kernels_async.cu", "@warp-bar-arrive"));
  EXPECT_NE(zero[0].message.find("calls arrive(0)"), std::string::npos) << zero[0].message;
  EXPECT_NE(zero[0].message.find("must be at least 1"), std::string::npos) << zero[0].message;
  const auto unordered = findings_of(run_warp_barrier_sum, 8, "race", &error);
  ASSERT_FALSE(unordered.empty()) << "a copy not ordered before the phase's arrival: no finding";
  EXPECT_EQ(unordered[0].line, line_of("kernels_async.cu", "@warp-bar-lane-copy"));
  EXPECT_NE(unordered[0].message.find("the copy then joins the next phase"), std::string::npos) << unordered[0].message;
  const auto stale = findings_of(run_warp_barrier_sum, 10, "barrier-divergence", &error);
  EXPECT_NE(error, cudaSuccess);
  ASSERT_FALSE(stale.empty()) << "a token two phases old: no finding";
  EXPECT_EQ(stale[0].line, line_of("kernels_async.cu", "@warp-bar-stale"));
  EXPECT_NE(stale[0].message.find("waits with the token of phase 0, and the barrier is at phase 2"), std::string::npos)
      << stale[0].message;
}

// A pipeline of the whole block: both copy forms report nothing and sum right; without consumer_wait() the reads meet
// copies still in flight; a pipeline of one warp's group is what the backend does not support.
TEST(CheckMode, BlockPipelines) {
  expect_clean_sums(run_block_pipeline_sum, {0, 1});
  const std::string read = early_read(run_block_pipeline_sum, 2, "@block-pipe-read");
  ASSERT_FALSE(read.empty()) << "no async-copy finding at the read";
  EXPECT_NE(read.find("(cuda::memcpy_async)"), std::string::npos) << read;
  cudaError_t error = cudaSuccess;
  const auto u = findings_of(run_block_pipeline_sum, 3, "unsupported", &error);
  EXPECT_NE(error, cudaSuccess);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].line, line_of("kernels_async.cu", "@block-pipe-wait"));
  EXPECT_NE(u[0].message.find("this use of the cuda::pipeline"), std::string::npos) << u[0].message;
  // Without consumer_release() the third producer_acquire() would wait for ever on a GPU.
  const auto stuck = findings_of(run_block_pipeline_sum, 4, "barrier-divergence", &error);
  EXPECT_NE(error, cudaSuccess);
  ASSERT_FALSE(stuck.empty());
  EXPECT_EQ(stuck[0].line, line_of("kernels_async.cu", "@block-pipe-acquire"));
  EXPECT_NE(stuck[0].message.find("consumer_release()"), std::string::npos) << stuck[0].message;
}

// A float4 read through a pointer to const is a checked read (lab 07 reads its tiles so): a pending copy and a word
// nobody wrote are reported at it; the correct kernel reports nothing.
TEST(CheckMode, VectorReadsThroughConstPointers) {
  const std::vector<float> host = iota_floats(64);
  DeviceBuffer<float> in(host), out(64);
  const int line = line_of("kernels_async.cu", "@async-vec");
  course_cpu::take_diagnostics();
  ASSERT_EQ(run_vector_read(in.ptr, out.ptr, 0), cudaSuccess);
  EXPECT_TRUE(course_cpu::take_diagnostics().empty());
  std::vector<float> expected(64);
  for (int i = 0; i < 64; ++i) expected[i] = host[(i + 4) % 64];
  EXPECT_EQ(out.get(), expected);

  ASSERT_EQ(run_vector_read(in.ptr, out.ptr, 1), cudaSuccess);
  auto d = of_category(course_cpu::take_diagnostics(), "async-copy");
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].line, line) << d[0].message;
  EXPECT_NE(d[0].message.find("reads v["), std::string::npos) << d[0].message;

  ASSERT_EQ(run_vector_read(in.ptr, out.ptr, 2), cudaSuccess);
  d = of_category(course_cpu::take_diagnostics(), "uninitialized-shared-read");
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].line, line) << d[0].message;
}

// A copy whose source runs past its cudaMalloc'ed buffer fails the launch like any out-of-bounds access, named by the
// call that made it (a cooperative_groups::memcpy_async was once named __pipeline_memcpy_async, with that one's advice).
TEST(CheckMode, AsynchronousCopyPastTheEnd) {
  DeviceBuffer<float> in(iota_floats(30)), out(32);
  course_cpu::take_diagnostics();
  EXPECT_EQ(run_wide_copy(in.ptr, out.ptr, 0, 16, 0), cudaErrorIllegalAddress);
  auto d = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, line_of("kernels_async.cu", "@async-wide"));
  EXPECT_NE(d[0].message.find("calls __pipeline_memcpy_async at line"), std::string::npos) << d[0].message;
  cudaGetLastError();

  DeviceBuffer<float> five_tiles(iota_floats(64 * 5)), sums(64);
  EXPECT_EQ(run_group_pipelined_sum(five_tiles.ptr, sums.ptr, 6, 0), cudaErrorIllegalAddress);
  d = of_category(course_cpu::take_diagnostics(), "out-of-bounds");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].message.find("calls cooperative_groups::memcpy_async at line"), std::string::npos) << d[0].message;
  EXPECT_EQ(d[0].message.find("zfill"), std::string::npos) << d[0].message;
  cudaGetLastError();
}
