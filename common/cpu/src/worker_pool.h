// CPU backend of the course: the worker OS threads that run a grid's blocks.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace course_cpu::detail {

struct Worker;  // scheduler.h

// Worker 0 is the launching thread; workers 1..W-1 are long-lived threads, so
// static __shared__ arrays (thread_local) and fiber stacks are reused.
class WorkerPool {
 public:
  WorkerPool();
  // Runs job once on every worker (worker 0 on the calling thread) and waits.
  void run(const std::function<void(Worker&)>& job);
  std::vector<Worker*> workers() const;

 private:
  static void enter(Worker& w, const std::function<void(Worker&)>& job);
  void loop(Worker& w);

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  const std::function<void(Worker&)>* job_ = nullptr;
};

// The process's pool, created on first use and never destroyed (its threads
// live until exit).
WorkerPool& worker_pool();

}  // namespace course_cpu::detail
