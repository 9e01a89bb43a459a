#include "course/timed_buffers.h"

#include "course/device_buffer.h"
#include "course/measure.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace course {

namespace {

constexpr std::size_t kAlign = 64;  // window offsets are multiples of this many floats (256 bytes)

// The pool's spare values beyond one set: a quarter of the set (at least 4096), so an offset has count / 256
// possible values or more.
std::size_t slack_for(std::size_t count) {
  const std::size_t slack = std::max<std::size_t>(count / 4, 4096);
  return (slack + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

// ---- TimedBuffer ------------------------------------------------------------------------------------------------------

TimedBuffer::TimedBuffer(PerfState& state, std::size_t count, std::string name)
    : count_(count), name_(std::move(name)), state_(&state) {
  if (count_ == 0) throw std::invalid_argument("timed buffer '" + name_ + "': it needs at least one element");
  sets_.push_back(static_cast<float*>(allocate_device_bytes(checked_bytes(count_, sizeof(float), name_), name_)));
  state.adopt(this);
}

TimedBuffer::~TimedBuffer() {
  for (float* p : sets_) free_device_bytes(p);
  state_->forget(this);
}

void TimedBuffer::allocate(int sets) {
  while (static_cast<int>(sets_.size()) < sets) {
    const std::string what = name_ + " (set " + std::to_string(sets_.size()) + " of the timed calls)";
    sets_.push_back(static_cast<float*>(allocate_device_bytes(set_bytes(), what)));
  }
}

// ---- TimedInput -------------------------------------------------------------------------------------------------------

TimedInput::TimedInput(PerfState& state, std::size_t count, std::uint64_t seed, std::string name, float lo, float hi)
    : TimedBuffer(state, count, std::move(name)), pool_(random_floats(count + slack_for(count), seed, lo, hi)) {
  device_pool_ = static_cast<float*>(
      allocate_device_bytes(checked_bytes(pool_.size(), sizeof(float), name_), name_ + " (the pool of its values)"));
  CUDA_CHECK(cudaMemcpy(device_pool_, pool_.data(), pool_.size() * sizeof(float), cudaMemcpyHostToDevice));
  offsets_.assign(1, 0);
  CUDA_CHECK(cudaMemcpy(sets_[0], device_pool_, set_bytes(), cudaMemcpyDeviceToDevice));
}

TimedInput::~TimedInput() { free_device_bytes(device_pool_); }

std::span<const float> TimedInput::host() const {
  return std::span<const float>(pool_).subspan(offsets_.at(current_), count_);
}

void TimedInput::refresh(int sets, Rng& rng) {
  if (sets > static_cast<int>(sets_.size())) throw std::logic_error("timed input '" + name_ + "': too few sets");
  offsets_.resize(sets_.size(), 0);
  const std::size_t choices = (pool_.size() - count_) / kAlign + 1;
  for (int s = 0; s < sets; ++s) {
    offsets_[s] = static_cast<std::size_t>(rng.next_u64() % choices) * kAlign;
    CUDA_CHECK(cudaMemcpyAsync(sets_[s], device_pool_ + offsets_[s], set_bytes(), cudaMemcpyDeviceToDevice, 0));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

Reference TimedInput::sum() const {
  const std::size_t blocks = pool_.size() / kAlign;
  if (prefix_.empty()) {  // prefix_[b]: the sum of blocks 0 .. b-1; prefix_[blocks + 1 + b]: of their magnitudes
    prefix_.assign(2 * (blocks + 1), 0.0);
    for (std::size_t b = 0; b < blocks; ++b) {
      double sum = 0.0, magnitude = 0.0;
      for (std::size_t i = b * kAlign; i < (b + 1) * kAlign; ++i) {
        sum += static_cast<double>(pool_[i]);  // 64 floats in double: exact
        magnitude += std::fabs(static_cast<double>(pool_[i]));
      }
      prefix_[b + 1] = prefix_[b] + sum;
      prefix_[blocks + 2 + b] = prefix_[blocks + 1 + b] + magnitude;
    }
  }
  const std::size_t first = offsets_.at(current_), end = first + count_;
  const std::size_t whole = end / kAlign;  // blocks first/64 .. whole-1 lie inside the window
  Reference ref;
  double sum = prefix_[whole] - prefix_[first / kAlign];
  double magnitude = prefix_[blocks + 1 + whole] - prefix_[blocks + 1 + first / kAlign];
  for (std::size_t i = whole * kAlign; i < end; ++i) {
    sum += static_cast<double>(pool_[i]);
    magnitude += std::fabs(static_cast<double>(pool_[i]));
  }
  ref.value = {sum};
  ref.scale = {magnitude};
  return ref;
}

// ---- TimedOutput ------------------------------------------------------------------------------------------------------

TimedOutput::TimedOutput(PerfState& state, std::size_t count, std::string name)
    : TimedBuffer(state, count, std::move(name)) {
  poison();
}

void TimedOutput::poison() { CUDA_CHECK(cudaMemset(sets_.at(current_), 0xFF, set_bytes())); }

std::vector<float> TimedOutput::download() const { return gather(0, count_); }

std::vector<float> TimedOutput::gather(std::size_t first, std::size_t count) const {
  if (first > count_ || count > count_ - first)
    throw std::out_of_range("timed output '" + name_ + "': elements " + std::to_string(first) + " + " +
                            std::to_string(count) + " are past its " + std::to_string(count_));
  std::vector<float> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), sets_.at(current_) + first, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

void TimedOutput::refresh(int sets, Rng&) {
  if (sets > static_cast<int>(sets_.size())) throw std::logic_error("timed output '" + name_ + "': too few sets");
  for (int s = 0; s < sets; ++s) CUDA_CHECK(cudaMemsetAsync(sets_[s], 0xFF, set_bytes(), 0));
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace course
