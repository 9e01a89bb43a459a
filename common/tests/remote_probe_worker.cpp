// A worker for remote_test.cpp (course/remote.h): launchers that report what the worker process can see, or die.
// They are host code, like a student's launcher: device memory is read and written only through cudaMemcpy (the CPU
// backend, like a GPU, faults on a host dereference of a cudaMalloc pointer).
#include <course/remote.h>
#include <course_cpu/sharing.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

namespace {
void put(float* out, const std::vector<float>& values) {
  cudaMemcpy(out, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice);
}
std::vector<float> get(const float* in, int n) {
  std::vector<float> values(static_cast<std::size_t>(n));
  cudaMemcpy(values.data(), in, values.size() * sizeof(float), cudaMemcpyDeviceToHost);
  return values;
}

bool is_device_buffer(int fd) {
  char target[256] = {};
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
  return n > 0 && std::string(target, static_cast<std::size_t>(n)).rfind("/memfd:course-device-memory", 0) == 0;
}
}  // namespace

// out[0]: 1 if the seed is in the environment; out[1]: descriptors open above the socket (fd 3), other than the
// device buffers this worker mapped (memfds); out[2]: 1 if fd 3 is open.
void probe(float* out, cudaStream_t) {
  int open_fds = 0;
  for (int fd = 4; fd < 1024; ++fd)
    if (fcntl(fd, F_GETFD) != -1 && !is_device_buffer(fd)) ++open_fds;
  put(out, {std::getenv("COURSE_SEED") != nullptr ? 1.0f : 0.0f, static_cast<float>(open_fds),
            fcntl(3, F_GETFD) != -1 ? 1.0f : 0.0f});
}

// out[0]: 1 if a device allocation of the worker's own (a launcher's workspace) lies in the worker's address range,
// apart from the judge's buffers (out itself: out[1] is 1 if it lies in the judge's range).
void arena(float* out, cudaStream_t) {
  void* own = nullptr;
  const auto in = [](const void* p, int arena) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t start = course_cpu::kDeviceArenaStart[arena];
    return at >= start && at < start + course_cpu::kDeviceArenaSize;
  };
  if (cudaMalloc(&own, 4096) != cudaSuccess) return;
  put(out, {in(own, 1) ? 1.0f : 0.0f, in(out, 0) ? 1.0f : 0.0f});
  cudaFree(own);
}

// Dies in the middle of a call, as a crashing student launcher would.
void die(float*, cudaStream_t) { std::abort(); }

// Never returns, as a launcher stuck in an endless loop would.
void hang(float*, cudaStream_t) {
  for (;;) pause();
}

// out[i] = in[i] + 1, computed on the host between two copies (host code stands for a kernel here): an honest lab.
void add_one(const float* in, float* out, int n, cudaStream_t) {
  std::vector<float> values = get(in, n);
  for (float& v : values) v += 1.0f;
  put(out, values);
}

// The cheats the timed buffers must catch (course/timed_buffers.h): computing once and replaying the result
// (whatever the inputs), and computing only on the first call.
void replay(const float* in, float* out, int n, cudaStream_t) {
  static std::vector<float> kept;
  if (kept.empty()) kept = get(in, n), std::for_each(kept.begin(), kept.end(), [](float& v) { v += 1.0f; });
  put(out, std::vector<float>(kept.begin(), kept.begin() + std::min<std::size_t>(kept.size(), n)));
}
void first_only(const float* in, float* out, int n, cudaStream_t s) {
  static bool done = false;
  if (!done) add_one(in, out, n, s);
  done = true;
}

int main() {
  static const course::remote::Launcher launchers[] = {
      course::remote::launcher("probe", &probe),   course::remote::launcher("die", &die),
      course::remote::launcher("hang", &hang),     course::remote::launcher("add_one", &add_one),
      course::remote::launcher("replay", &replay), course::remote::launcher("first_only", &first_only),
      course::remote::launcher("arena", &arena)};
  return course::remote::serve(launchers, std::size(launchers));
}
