// CPU backend of the course: what a rewritten `kernel<<<grid, block, shmem,
// stream>>>(args...)` calls, plus the per-OS-thread "current CUDA thread"
// state that the device built-ins (threadIdx, __syncthreads, ...) read.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

// ---- CUDA built-in variables ------------------------------------------------
// Every CUDA thread of a block is a fiber running on one worker OS thread; the
// scheduler stores the running fiber's indices in these thread_local variables
// before it resumes the fiber. Being variables (not macros), they can be
// shadowed by host code such as `dim3 blockDim(16, 16);`, as with nvcc.
extern constinit thread_local uint3 threadIdx;
extern constinit thread_local uint3 blockIdx;
extern constinit thread_local dim3 blockDim;
extern constinit thread_local dim3 gridDim;
constexpr int warpSize = 32;

namespace course_cpu {

// Where a kernel was launched from; kernel is the text before <<<.
struct LaunchSite {
  const char* kernel;
  const char* file;
  int line;
  const void* kernel_address;
};

namespace detail {

using KernelThunk = void (*)(const void* closure);

// Validates the configuration, runs all blocks (blocking), records errors and
// diagnostics. Defined in src/scheduler.cpp.
// `checked` is true for code rewritten in check mode.
void run_grid(const LaunchSite& site, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes, bool checked,
              KernelThunk thunk, const void* closure);

// The dynamic shared memory arena (extern __shared__) of the running block.
extern constinit thread_local unsigned char* tl_dynamic_shared;

}  // namespace detail

// Returned by launch(); its call operator takes the kernel arguments, converts
// them to the kernel's parameter types once (as CUDA copies them into the
// parameter buffer) and runs the grid.
// Files rewritten in check mode define COURSE_CPU_CHECK_MODE to 1 before
// including the prelude; it is a default template argument (not a branch in
// the template body) so fast and check translation units never share an
// instantiation.
#ifndef COURSE_CPU_CHECK_MODE
#define COURSE_CPU_CHECK_MODE 0
#endif

template <bool Checked, class... Params>
class Launcher {
 public:
  Launcher(void (*kernel)(Params...), LaunchSite site, dim3 grid, dim3 block, std::size_t shared_bytes)
      : kernel_(kernel), site_(site), grid_(grid), block_(block), shared_bytes_(shared_bytes) {}

  template <class... Args>
  void operator()(Args&&... args) const {
    static_assert(sizeof...(Args) == sizeof...(Params), "kernel launched with the wrong number of arguments");
    struct Closure {
      void (*kernel)(Params...);
      std::tuple<std::decay_t<Params>...> args;
    };
    const Closure closure{kernel_, std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...)};
    detail::run_grid(
        site_, grid_, block_, shared_bytes_, Checked,
        [](const void* p) {
          const Closure& c = *static_cast<const Closure*>(p);
          std::apply(c.kernel, c.args);
        },
        &closure);
  }

 private:
  void (*kernel_)(Params...);
  LaunchSite site_;
  dim3 grid_, block_;
  std::size_t shared_bytes_;
};

// `k<<<g, b, s, st>>>(args)` is rewritten to
// `::course_cpu::launch(k, "k", __FILE__, line, g, b, s, st)(args)`.
template <bool Checked = (COURSE_CPU_CHECK_MODE != 0), class... Params>
Launcher<Checked, Params...> launch(void (*kernel)(Params...), const char* name, const char* file, int line, dim3 grid,
                                    dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = 0) {
  (void)stream;  // everything runs synchronously on the CPU
  return Launcher<Checked, Params...>(kernel, LaunchSite{name, file, line, reinterpret_cast<const void*>(kernel)}, grid,
                                      block, shared_bytes);
}

// A kernel template launched without template arguments,
// `k<<<g, b, s, st>>>(args)`, is rewritten to
// `::course_cpu::launch_deduced([](const auto&... a) { (k)(a...); }, "k", __FILE__, line, g, b, s, st)(args)`:
// the arguments are copied once (decayed, as CUDA copies them into the
// parameter buffer) and every CUDA thread calls the kernel with them, so
// overload resolution deduces the template arguments exactly as nvcc does and
// each thread gets its own by-value parameters. The specialization's address
// is not known here (see dynamic_shared_limit: any limit raised with
// cudaFuncSetAttribute applies).
template <bool Checked, class Call>
class DeducedLauncher {
 public:
  DeducedLauncher(LaunchSite site, dim3 grid, dim3 block, std::size_t shared_bytes)
      : site_(site), grid_(grid), block_(block), shared_bytes_(shared_bytes) {}

  template <class... Args>
  void operator()(Args&&... args) const {
    using Tuple = std::tuple<std::decay_t<Args>...>;
    const Tuple closure(std::forward<Args>(args)...);
    detail::run_grid(
        site_, grid_, block_, shared_bytes_, Checked,
        [](const void* p) { std::apply(Call{}, *static_cast<const Tuple*>(p)); }, &closure);
  }

 private:
  LaunchSite site_;
  dim3 grid_, block_;
  std::size_t shared_bytes_;
};

template <bool Checked = (COURSE_CPU_CHECK_MODE != 0), class Call>
DeducedLauncher<Checked, Call> launch_deduced(Call, const char* name, const char* file, int line, dim3 grid, dim3 block,
                                              std::size_t shared_bytes = 0, cudaStream_t stream = 0) {
  static_assert(std::is_empty_v<Call> && std::is_default_constructible_v<Call>);
  (void)stream;
  return DeducedLauncher<Checked, Call>(LaunchSite{name, file, line, nullptr}, grid, block, shared_bytes);
}

// `extern __shared__ T name[];` inside a function becomes
// `T* const name = ::course_cpu::dynamic_shared<T>();`.
template <class T>
inline T* dynamic_shared() {
  return reinterpret_cast<T*>(detail::tl_dynamic_shared);
}

// `extern __shared__ T name[];` at namespace scope becomes
// `static ::course_cpu::DynamicShared<T> name;`: it behaves like the array
// (subscript, decay to T*), always pointing at the running block's arena.
template <class T>
struct DynamicShared {
  T* get() const { return dynamic_shared<T>(); }
  operator T*() const { return get(); }
  T& operator[](std::ptrdiff_t i) const { return get()[i]; }
};

}  // namespace course_cpu

// cudaLaunchKernel(kernel, grid, block, args, shmem, stream): args[i] points at the i-th argument, as in CUDA. The
// launch is the one of `kernel<<<grid, block, shmem, stream>>>(...)`; the result is its configuration error, if any
// (errors of the running kernel come from the next synchronizing call, as on a GPU).
namespace course_cpu::detail {
cudaError_t launch_configuration_error(const void* kernel, dim3 grid, dim3 block, std::size_t shmem);
}  // namespace course_cpu::detail
template <class... Params>
inline cudaError_t cudaLaunchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, void** args,
                                    std::size_t shmem = 0, cudaStream_t stream = 0) {
  const cudaError_t e =
      course_cpu::detail::launch_configuration_error(reinterpret_cast<const void*>(kernel), grid, block, shmem);
  if (sizeof...(Params) > 0 && args == nullptr) return cudaErrorInvalidValue;
  auto launcher = course_cpu::launch(kernel, "cudaLaunchKernel", "cudaLaunchKernel", 0, grid, block, shmem, stream);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    launcher(*static_cast<std::remove_reference_t<Params>*>(args[I])...);
  }
  (std::index_sequence_for<Params...>{});
  return e;
}
