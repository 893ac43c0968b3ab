// The CPU backend of the memory family: STREAM's loops on a rank's threads.
#include <algorithm>
#include <cmath>

#include <new>

#include "memory/backend.hpp"
#include "memory/thread_team.hpp"

namespace preflight::memory {
namespace {

using kernels::StreamKernel;

// Page-aligned doubles left untouched until a thread writes them, so that the first touch places
// each page (std::vector would zero them all on the thread that made it).
class UntouchedArray {
 public:
  explicit UntouchedArray(std::size_t n)
      : p_(static_cast<double*>(::operator new (n * sizeof(double), std::align_val_t{4096}))) {}
  ~UntouchedArray() { ::operator delete (p_, std::align_val_t{4096}); }
  UntouchedArray(const UntouchedArray&) = delete;
  UntouchedArray& operator=(const UntouchedArray&) = delete;
  double* data() { return p_; }
  double& operator[](std::size_t j) { return p_[j]; }

 private:
  double* p_;
};

// One rank's three arrays and its team. Each thread fills (first touches) its own slice, so on
// a multi-socket node its pages land on its own socket, as STREAM's OpenMP loops do.
class StreamOperation final : public Operation {
 public:
  StreamOperation(StreamKernel kernel, std::size_t elements, int threads, std::uint64_t seed)
      : kernel_(kernel),
        n_(elements),
        seed_(seed),
        a_(n_),
        b_(n_),
        c_(n_),
        team_(threads, [this](int t, int slices) { slice(t, slices); }) {}
  void fill() override {
    filling_ = true;
    team_.run();
    filling_ = false;
  }
  void run() override { team_.run(); }
  std::uint64_t count_wrong() override {
    std::uint64_t wrong = 0;
    auto& out = output();
    for (std::size_t j = 0; j < n_; ++j) wrong += out[j] == expected(j) ? 0 : 1;
    return wrong;
  }
  void corrupt_result() override { output()[n_ / 2] += 1; }

 private:
  void slice(int t, int slices) {
    const std::size_t per =
        (n_ + static_cast<std::size_t>(slices) - 1) / static_cast<std::size_t>(slices);
    const std::size_t begin = std::min(n_, per * static_cast<std::size_t>(t)),
                      end = std::min(n_, begin + per);
    if (!filling_) return kernels::stream_run(kernel_, a_.data(), b_.data(), c_.data(), begin, end);
    for (std::size_t j = begin; j < end; ++j) {
      a_[j] = kernels::stream_input(0, j, seed_);
      b_[j] = kernels::stream_input(1, j, seed_);
      c_[j] = kernels::stream_input(2, j, seed_);
    }
    // The output array to NaN: an element the kernel never wrote fails the check.
    for (std::size_t j = begin; j < end; ++j) output()[j] = std::nan("");
  }
  UntouchedArray& output() {
    switch (kernel_) {
      case StreamKernel::kScale:
        return b_;
      case StreamKernel::kTriad:
        return a_;
      default:
        return c_;
    }
  }
  double expected(std::size_t j) const {
    const double a = kernels::stream_input(0, j, seed_), b = kernels::stream_input(1, j, seed_),
                 c = kernels::stream_input(2, j, seed_), q = kernels::kStreamScalar;
    switch (kernel_) {
      case StreamKernel::kCopy:
        return a;
      case StreamKernel::kScale:
        return q * c;
      case StreamKernel::kAdd:
        return a + b;
      case StreamKernel::kTriad:
        return b + q * c;
    }
    return 0;
  }

  StreamKernel kernel_;
  std::size_t n_;
  std::uint64_t seed_;
  UntouchedArray a_, b_, c_;
  bool filling_ = false;
  ThreadTeam team_;
};

}  // namespace

std::unique_ptr<Operation> make_cpu_stream(StreamKernel kernel, std::size_t elements, int threads,
                                           std::uint64_t seed) {
  return std::make_unique<StreamOperation>(kernel, elements, threads, seed);
}

}  // namespace preflight::memory
