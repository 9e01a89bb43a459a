// Helpers shared by the CPU backend's self-tests.
#pragma once

#include <course_cpu/diagnostics.h>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

// The line of the first line of `file` (in this directory) containing `marker`.
inline int line_of(const std::string& file, const std::string& marker) {
  std::ifstream in(std::string(COURSE_CPU_TEST_DIR) + "/" + file);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line)
    if (text.find(marker) != std::string::npos) return line;
  return -1;
}

// Nothing was reported since the last take_diagnostics().
inline void expect_no_diagnostics() {
  const auto d = course_cpu::take_diagnostics();
  EXPECT_TRUE(d.empty()) << d.front().category << ": " << d.front().message;
}

// A device buffer filled from / read back to host vectors.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceBuffer(std::size_t n) : count(n) {
    cudaMalloc(&ptr, n * sizeof(T));
    cudaMemset(ptr, 0, n * sizeof(T));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  std::vector<T> get() const {
    std::vector<T> host(count);
    cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost);
    return host;
  }
};

inline std::vector<course_cpu::Diagnostic> of_category(const std::vector<course_cpu::Diagnostic>& all,
                                                       const std::string& category) {
  std::vector<course_cpu::Diagnostic> out;
  for (const auto& d : all)
    if (d.category == category) out.push_back(d);
  return out;
}

inline std::vector<float> iota_floats(std::size_t n, float scale = 1.0f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7) % 13) * scale;
  return v;
}

inline std::vector<float> reference_gemm(const std::vector<float>& A, const std::vector<float>& B, int M, int N,
                                         int K) {
  std::vector<float> C(static_cast<std::size_t>(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += static_cast<double>(A[i * K + k]) * B[k * N + j];
      C[i * N + j] = static_cast<float>(s);
    }
  return C;
}
