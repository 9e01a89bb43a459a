// CPU backend of the course: the worker pool (worker_pool.h).
#include "worker_pool.h"

#include "scheduler.h"

#include <thread>

namespace course_cpu::detail {

WorkerPool::WorkerPool() {
  const int n = worker_count();
  for (int i = 0; i < n; ++i) workers_.push_back(std::make_unique<Worker>(i));
  for (int i = 1; i < n; ++i) {
    std::thread([this, i] { loop(*workers_[i]); }).detach();
  }
}

void WorkerPool::run(const std::function<void(Worker&)>& job) {
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    pending_ = static_cast<int>(workers_.size()) - 1;
    ++generation_;
  }
  start_.notify_all();
  enter(*workers_[0], job);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  job_ = nullptr;
}

std::vector<Worker*> WorkerPool::workers() const {
  std::vector<Worker*> out;
  for (auto& w : workers_) out.push_back(w.get());
  return out;
}

void WorkerPool::enter(Worker& w, const std::function<void(Worker&)>& job) {
  static thread_local bool stack_installed = false;
  if (!stack_installed) {
    install_fault_stack_for_thread();
    stack_installed = true;
  }
  tl_worker = &w;
  job(w);
  tl_worker = nullptr;
}

void WorkerPool::loop(Worker& w) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(Worker&)>* job;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      job = job_;
    }
    enter(w, *job);
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

WorkerPool& worker_pool() {
  static WorkerPool* p = new WorkerPool;  // never destroyed: its threads live until exit
  return *p;
}

}  // namespace course_cpu::detail
