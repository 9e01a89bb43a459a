// DeviceBuffer<T>: owns one device allocation, which it frees exactly once. Move-only.
//
//   course::DeviceBuffer<float> a(host_vector);      // allocate + upload
//   course::DeviceBuffer<float> c(n, "C");           // allocate n elements; the name appears in error messages
//   c.poison();                                      // every byte 0xFF: a float NaN, so unwritten outputs show
//   std::vector<float> out = c.download();
#pragma once

#include "course/cuda_check.h"

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace course {

// Allocates `bytes` of device memory. Errors say what was being allocated, how much, and how much is free.
void* allocate_device_bytes(std::size_t bytes, const std::string& what);
void free_device_bytes(void* pointer) noexcept;
// count * element_size, or a clear error if that overflows.
std::size_t checked_bytes(std::size_t count, std::size_t element_size, const std::string& what);

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count, std::string name = "buffer") : name_(std::move(name)), size_(count) {
    data_ = static_cast<T*>(allocate_device_bytes(checked_bytes(count, sizeof(T), name_), name_));
  }
  explicit DeviceBuffer(std::span<const T> host, std::string name = "buffer")
      : DeviceBuffer(host.size(), std::move(name)) {
    upload(host);
  }
  explicit DeviceBuffer(const std::vector<T>& host, std::string name = "buffer")
      : DeviceBuffer(std::span<const T>(host), std::move(name)) {}

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  ~DeviceBuffer() { free_device_bytes(data_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  const std::string& name() const noexcept { return name_; }

  void upload(std::span<const T> host) {
    require_same_size(host.size(), "upload");
    CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  void download(std::span<T> host) const {
    require_same_size(host.size(), "download");
    CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
  }
  std::vector<T> download() const {
    std::vector<T> host(size_);
    download(std::span<T>(host));
    return host;
  }
  void fill_bytes(unsigned char value) { CUDA_CHECK(cudaMemset(data_, value, bytes())); }
  // Every byte 0xFF: NaN for float/double, -1 for signed integers. Done before each run of a student kernel.
  void poison() { fill_bytes(0xFF); }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(name_, other.name_);
  }
  void require_same_size(std::size_t host_size, const char* operation) const {
    if (host_size != size_)
      throw std::invalid_argument(std::string(operation) + " of '" + name_ + "': host side has " +
                                  std::to_string(host_size) + " elements, device buffer has " + std::to_string(size_));
  }

  T* data_ = nullptr;
  std::string name_;
  std::size_t size_ = 0;
};

}  // namespace course
