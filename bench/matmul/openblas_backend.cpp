// The CPU backend: OpenBLAS's sgemm and dgemm through CBLAS, with the rank's threads.
#include <cblas.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/page_aligned.hpp"
#include "cpu/result_hash.hpp"
#include "harness/env/environment.hpp"
#include "matmul/backend.hpp"
#include "matmul/cpu_peak.hpp"

namespace preflight::matmul {
namespace {

template <typename T>
void gemm(const Shape& s, const T* a, const T* b, T* c) {
  const auto m = static_cast<blasint>(s.m), n = static_cast<blasint>(s.n),
             k = static_cast<blasint>(s.k);
  if constexpr (std::is_same_v<T, double>)
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, k, 0.0, c, m);
  else
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, 1.0F, a, k, b, k, 0.0F, c, m);
}

template <typename T>
class BlasGemm final : public GemmOperation {
 public:
  explicit BlasGemm(const GemmPoint& p)
      : p_(p),
        a_(static_cast<std::size_t>(p.shape.k * p.shape.m)),
        b_(static_cast<std::size_t>(p.shape.k * p.shape.n)),
        c_(static_cast<std::size_t>(p.shape.m * p.shape.n)),
        samples_(checked_elements(p)) {
    // OpenBLAS's thread count is per process: set it for this rank's share of the host.
    openblas_set_num_threads(p.threads);
  }
  void fill() override {
    const auto sa = input_seed(p_, 0), sb = input_seed(p_, 1);
    for (std::size_t e = 0; e < a_.size(); ++e) a_[e] = static_cast<T>(input_value(sa, e));
    for (std::size_t e = 0; e < b_.size(); ++e) b_[e] = static_cast<T>(input_value(sb, e));
    std::fill(c_.begin(), c_.end(), std::numeric_limits<T>::quiet_NaN());
  }
  void run() override { gemm(p_.shape, a_.data(), b_.data(), c_.data()); }
  std::uint64_t count_wrong() override {
    const auto& s = p_.shape;
    return matmul::count_wrong(
        s, samples_, tolerance_of(p_.dtype, s.k),
        [&](std::int64_t i, std::int64_t q) { return a_[static_cast<std::size_t>(i * s.k + q)]; },
        [&](std::int64_t q, std::int64_t j) { return b_[static_cast<std::size_t>(j * s.k + q)]; },
        [&](std::int64_t i, std::int64_t j) { return c_[static_cast<std::size_t>(j * s.m + i)]; });
  }
  // Far outside any tolerance, on an element the check samples.
  void corrupt_result() override {
    const auto& e = samples_.front();
    c_[static_cast<std::size_t>(e.j * p_.shape.m + e.i)] += static_cast<T>(1024);
  }
  std::int64_t algorithm() const override { return -1; }
  std::uint64_t result_hash() override {
    return kernels::hash_bytes(c_.data(), c_.size() * sizeof(T));
  }
  std::vector<unsigned char> result_bytes() override {
    const auto* p = reinterpret_cast<const unsigned char*>(c_.data());
    return {p, p + c_.size() * sizeof(T)};
  }
  void flip_result_bit(std::uint64_t element, int bit) override {
    auto* p = reinterpret_cast<unsigned char*>(&c_[element]);
    p[bit / 8] = static_cast<unsigned char>(p[bit / 8] ^ (1U << (bit % 8)));
  }
  std::size_t result_element_bytes() const override { return sizeof(T); }
  void poison_result() override { std::memset(c_.data(), 0xff, c_.size() * sizeof(T)); }
  double result_value(const unsigned char* element) const override {
    T v{};
    std::memcpy(&v, element, sizeof(T));
    return v;
  }

 private:
  GemmPoint p_;
  kernels::PageVector<T> a_, b_, c_;
  std::vector<Element> samples_;
};

class OpenBlasBackend final : public GemmBackend {
 public:
  std::string_view name() const override { return "openblas"; }
  std::string library() const override {
    return fmt::format("{} (core {})", openblas_get_config(), openblas_get_corename());
  }
  bool on_gpu() const override { return false; }
  bool supports(DType d) const override { return d == DType::kFloat64 || d == DType::kFloat32; }
  std::string unavailable() const override { return ""; }
  Peak peak(DType d, const CpuPeakInputs& cpu) const override { return cpu_peak(d, cpu); }
  std::string device_model() const override { return cpu_model(); }
  // OpenBLAS splits C, not k, among its threads: a thread count fixed for the run gives the same
  // summation order every time.
  std::string determinism(int threads) const override {
    return fmt::format(
        "OpenBLAS with {} thread{} per rank fixed for the run (openblas_set_num_threads), the same "
        "seeded inputs on every rank",
        threads, threads == 1 ? "" : "s");
  }
  // OpenBLAS's serial and threaded drivers may split the work differently: 1 thread and N
  // threads can differ in bits.
  std::string determinism_class(int threads) const override {
    return fmt::format("{} BLAS thread{}", threads, threads == 1 ? "" : "s");
  }
  std::unique_ptr<GemmOperation> make_operation(const GemmPoint& p) override {
    if (p.dtype == DType::kFloat64) return std::make_unique<BlasGemm<double>>(p);
    return std::make_unique<BlasGemm<float>>(p);
  }
};

}  // namespace

std::shared_ptr<GemmBackend> make_openblas_backend(int /*local_rank*/) {
  return std::make_shared<OpenBlasBackend>();
}

}  // namespace preflight::matmul
