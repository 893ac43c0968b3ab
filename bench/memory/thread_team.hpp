// A rank's worker threads, started once per operation and released for each run: one run is
// every thread doing its slice, the calling thread being the first of them, so one thread costs
// nothing and several cost two barrier crossings per run, not a thread start.
#pragma once

#include <atomic>
#include <barrier>
#include <functional>
#include <thread>
#include <vector>

namespace preflight::memory {

class ThreadTeam {
 public:
  // work(slice, slices) does one slice of one run.
  ThreadTeam(int threads, std::function<void(int, int)> work)
      : work_(std::move(work)), threads_(threads), start_(threads), done_(threads) {
    for (int t = 1; t < threads_; ++t)
      workers_.emplace_back([this, t] {
        while (true) {
          start_.arrive_and_wait();
          if (stop_.load(std::memory_order_relaxed)) return;
          work_(t, threads_);
          done_.arrive_and_wait();
        }
      });
  }
  ~ThreadTeam() {
    stop_ = true;
    if (threads_ > 1) start_.arrive_and_wait();
    for (auto& w : workers_) w.join();
  }
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  void run() {
    if (threads_ == 1) return work_(0, 1);
    start_.arrive_and_wait();
    work_(0, threads_);
    done_.arrive_and_wait();
  }

 private:
  std::function<void(int, int)> work_;
  int threads_;
  std::atomic<bool> stop_{false};
  std::barrier<> start_, done_;
  std::vector<std::thread> workers_;
};

}  // namespace preflight::memory
