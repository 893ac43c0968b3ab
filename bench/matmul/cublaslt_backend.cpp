// The GPU backend: cuBLASLt. For each point it asks the heuristics for their top candidates,
// times each on the rank's GPU, and keeps the fastest (its place in the list is recorded).
// Layout "TN" (A transposed, column-major) for every dtype: cuBLASLt's fp8 kernels require it.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "cpu/result_hash.hpp"
#include "cuda/gemm_input.hpp"
#include "cuda/result_hash.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/known_gpus.hpp"
#include "gpu/stream_bound.hpp"
#include "matmul/backend.hpp"
#include "matmul/cublaslt_library.hpp"

namespace preflight::matmul {
namespace {

// "driver 570.124.06 (CUDA 12.8)": the kernel module's version where /proc tells it, and the
// CUDA driver API version the driver supports.
std::string driver_text() {
  int v = 0;
  const std::string api = cudaDriverGetVersion(&v) == cudaSuccess
                              ? fmt::format("CUDA {}.{}", v / 1000, (v % 1000) / 10)
                              : std::string("CUDA unknown");
  std::ifstream in("/proc/driver/nvidia/version");
  std::string word;
  while (in >> word)  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  ..."
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word.front())) &&
        word.find('.') != std::string::npos)
      return fmt::format("driver {} ({})", word, api);
  return fmt::format("driver unknown ({})", api);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("{}: cuBLAS status {}", what, static_cast<int>(s)));
}

constexpr int kCandidates = 8;                // heuristics' top candidates timed per point
constexpr int kTrialRuns = 5;                 // timed runs per candidate
constexpr std::size_t kWorkspace = 64 << 20;  // what cuBLASLt's Hopper kernels may ask for

// How one dtype runs: the CUDA types of A, B and C, the compute type and the scale type.
struct LtTypes {
  cudaDataType_t a, b, c;
  cublasComputeType_t compute;
  cudaDataType_t scale;
};

LtTypes lt_types(DType d) {
  switch (d) {
    case DType::kFloat64:
      return {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F};
    case DType::kFloat32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::kTf32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F};
    case DType::kFloat16:
      return {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::kBfloat16:
      return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::kFp8E4m3:
      return {CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::kFp8E5m2:  // e5m2 x e5m2 has no kernel: B is e4m3, as in training's backward pass
      return {CUDA_R_8F_E5M2, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
  }
  return lt_types(DType::kFloat32);
}

std::size_t bytes_of(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_64F:
      return 8;
    case CUDA_R_32F:
      return 4;
    case CUDA_R_16F:
    case CUDA_R_16BF:
      return 2;
    default:
      return 1;
  }
}

// A host value as the GPU stores it, and back: what the reference must use.
void encode(cudaDataType_t t, double v, unsigned char* out) {
  switch (t) {
    case CUDA_R_64F:
      *reinterpret_cast<double*>(out) = v;
      return;
    case CUDA_R_32F:
      *reinterpret_cast<float*>(out) = static_cast<float>(v);
      return;
    case CUDA_R_16F:
      *reinterpret_cast<__half*>(out) = __float2half(static_cast<float>(v));
      return;
    case CUDA_R_16BF:
      *reinterpret_cast<__nv_bfloat16*>(out) = __float2bfloat16(static_cast<float>(v));
      return;
    case CUDA_R_8F_E4M3:
      *reinterpret_cast<__nv_fp8_e4m3*>(out) = __nv_fp8_e4m3(static_cast<float>(v));
      return;
    default:
      *reinterpret_cast<__nv_fp8_e5m2*>(out) = __nv_fp8_e5m2(static_cast<float>(v));
      return;
  }
}

double decode(cudaDataType_t t, const unsigned char* in) {
  switch (t) {
    case CUDA_R_64F:
      return *reinterpret_cast<const double*>(in);
    case CUDA_R_32F:
      return *reinterpret_cast<const float*>(in);
    case CUDA_R_16F:
      return __half2float(*reinterpret_cast<const __half*>(in));
    case CUDA_R_16BF:
      return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(in));
    case CUDA_R_8F_E4M3:
      return static_cast<float>(*reinterpret_cast<const __nv_fp8_e4m3*>(in));
    default:
      return static_cast<float>(*reinterpret_cast<const __nv_fp8_e5m2*>(in));
  }
}

kernels::gpu::GemmElement gemm_element(cudaDataType_t t) {
  using E = kernels::gpu::GemmElement;
  switch (t) {
    case CUDA_R_64F:
      return E::kFloat64;
    case CUDA_R_32F:
      return E::kFloat32;
    case CUDA_R_16F:
      return E::kFloat16;
    case CUDA_R_16BF:
      return E::kBfloat16;
    case CUDA_R_8F_E4M3:
      return E::kFp8E4m3;
    default:
      return E::kFp8E5m2;
  }
}

double rounded(cudaDataType_t t, double v) {
  unsigned char b[8] = {};
  encode(t, v, b);
  return decode(t, b);
}

class LtGemm final : public GemmOperation, public gpu::StreamBound {
 public:
  LtGemm(const GemmPoint& p, const CublasLtLibrary& lt, cublasLtHandle_t handle)
      : p_(p), t_(lt_types(p.dtype)), lt_(lt), handle_(handle), samples_(checked_elements(p)) {
    const auto& s = p_.shape;
    check(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    stream_ = own_stream_;
    timer_ = std::make_unique<gpu::EventTimer>(stream_);
    check(cudaMalloc(&a_, bytes_of(t_.a) * static_cast<std::size_t>(s.k * s.m)), "cudaMalloc A");
    check(cudaMalloc(&b_, bytes_of(t_.b) * static_cast<std::size_t>(s.k * s.n)), "cudaMalloc B");
    check(cudaMalloc(&c_, bytes_of(t_.c) * static_cast<std::size_t>(s.m * s.n)), "cudaMalloc C");
    check(cudaMalloc(&workspace_, kWorkspace), "cudaMalloc workspace");
    describe();
    fill();
    if (p_.deterministic)
      first_algorithm();
    else
      choose_algorithm();
  }
  ~LtGemm() override {
    cudaStreamSynchronize(stream_);
    lt_.preference_destroy(pref_);
    lt_.layout_destroy(la_);
    lt_.layout_destroy(lb_);
    lt_.layout_destroy(lc_);
    lt_.desc_destroy(desc_);
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(c_);
    cudaFree(workspace_);
    cudaFree(hash_sum_);
    cudaFreeHost(hash_host_);
    timer_.reset();
    cudaStreamDestroy(own_stream_);
  }

  // The inputs once (they never change), C to NaN before every check.
  void fill() override {
    if (!filled_) upload_inputs();
    filled_ = true;
    poison_result();
  }
  void poison_result() override {
    check(
        cudaMemsetAsync(
            c_, 0xff, bytes_of(t_.c) * static_cast<std::size_t>(p_.shape.m * p_.shape.n), stream_),
        "cudaMemset C");  // all-ones bytes: NaN in every float type, so an unwritten C fails
    check(cudaStreamSynchronize(stream_), "fill");
  }
  void upload_inputs() {
    upload(a_, t_.a, input_seed(p_, 0), static_cast<std::size_t>(p_.shape.k * p_.shape.m));
    upload(b_, t_.b, input_seed(p_, 1), static_cast<std::size_t>(p_.shape.k * p_.shape.n));
  }
  void launch() override { matmul(algo_); }
  void wait() override { check(cudaStreamSynchronize(stream_), "cublasLtMatmul"); }
  void run() override {
    launch();
    wait();
  }
  DeviceTimer* device_timer() override { return timer_.get(); }
  std::uint64_t count_wrong() override {
    const auto& s = p_.shape;
    const auto sa = input_seed(p_, 0), sb = input_seed(p_, 1);
    return matmul::count_wrong(
        s, samples_, tolerance_of(p_.dtype, s.k),
        [&](std::int64_t i, std::int64_t q) {
          return rounded(t_.a, input_value(sa, static_cast<std::uint64_t>(i * s.k + q)));
        },
        [&](std::int64_t q, std::int64_t j) {
          return rounded(t_.b, input_value(sb, static_cast<std::uint64_t>(j * s.k + q)));
        },
        [&](std::int64_t i, std::int64_t j) { return read_c(i, j); });
  }
  void corrupt_result() override {
    const auto& e = samples_.front();
    unsigned char b[8] = {};
    encode(t_.c, read_c(e.i, e.j) + 1024, b);
    check(cudaMemcpy(c_at(e.i, e.j), b, bytes_of(t_.c), cudaMemcpyHostToDevice), "corrupt C");
  }
  std::int64_t algorithm() const override { return kept_; }
  // The hash kernel queued behind the GEMM on its stream; only the 8-byte sum comes back.
  std::uint64_t result_hash() override {
    if (hash_sum_ == nullptr) {
      check(cudaMalloc(&hash_sum_, sizeof(*hash_sum_)), "cudaMalloc hash");
      check(cudaMallocHost(&hash_host_, sizeof(*hash_host_)), "cudaMallocHost hash");
    }
    const std::size_t bytes = c_bytes();
    check(kernels::gpu::hash_sum_on_device(c_, bytes, hash_sum_, stream_), "hash kernel");
    check(
        cudaMemcpyAsync(hash_host_, hash_sum_, sizeof(*hash_sum_), cudaMemcpyDeviceToHost, stream_),
        "copy hash");
    wait();
    return kernels::hash_finish(*hash_host_, bytes);
  }
  std::vector<unsigned char> result_bytes() override {
    std::vector<unsigned char> out(c_bytes());
    check(cudaMemcpyAsync(out.data(), c_, out.size(), cudaMemcpyDeviceToHost, stream_), "copy C");
    wait();
    return out;
  }
  void flip_result_bit(std::uint64_t element, int bit) override {
    auto* byte = static_cast<unsigned char*>(c_) + bytes_of(t_.c) * element + bit / 8;
    unsigned char b = 0;
    check(cudaMemcpyAsync(&b, byte, 1, cudaMemcpyDeviceToHost, stream_), "read C");
    wait();
    b = static_cast<unsigned char>(b ^ (1U << (bit % 8)));
    check(cudaMemcpyAsync(byte, &b, 1, cudaMemcpyHostToDevice, stream_), "flip C");
    wait();
  }
  std::size_t result_element_bytes() const override { return bytes_of(t_.c); }
  double result_value(const unsigned char* element) const override { return decode(t_.c, element); }
  // The step's compute stream (step/cuda_schedule.cpp): later GEMMs queue there, in order.
  void* stream() const override { return stream_; }
  void use_stream(void* stream) override {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    stream_ = static_cast<cudaStream_t>(stream);
    timer_ = std::make_unique<gpu::EventTimer>(stream_);
  }

 private:
  unsigned char* c_at(std::int64_t i, std::int64_t j) const {
    return static_cast<unsigned char*>(c_) +
           bytes_of(t_.c) * static_cast<std::size_t>(j * p_.shape.m + i);
  }
  double read_c(std::int64_t i, std::int64_t j) const {
    unsigned char b[8] = {};
    check(cudaMemcpy(b, c_at(i, j), bytes_of(t_.c), cudaMemcpyDeviceToHost), "read C");
    return decode(t_.c, b);
  }
  // Made on the GPU, on the GEMM's stream: the host's reference (count_wrong) computes the very
  // same values (kernels/cpu/gemm_input.hpp) and rounds them as the GPU does.
  void upload(void* dst, cudaDataType_t t, std::uint64_t seed, std::size_t n) {
    check(kernels::gpu::fill_gemm_input(gemm_element(t), dst, n, seed, stream_), "fill kernel");
    check(cudaStreamSynchronize(stream_), "fill kernel");
  }
  void describe() {
    const auto& s = p_.shape;
    const auto m = static_cast<std::uint64_t>(s.m), n = static_cast<std::uint64_t>(s.n),
               k = static_cast<std::uint64_t>(s.k);
    check(lt_.desc_create(&desc_, t_.compute, t_.scale), "MatmulDescCreate");
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    check(lt_.desc_set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)), "TRANSA");
    check(lt_.desc_set_attribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)), "TRANSB");
    check(lt_.layout_create(&la_, t_.a, k, m, static_cast<std::int64_t>(k)), "layout A");
    check(lt_.layout_create(&lb_, t_.b, k, n, static_cast<std::int64_t>(k)), "layout B");
    check(lt_.layout_create(&lc_, t_.c, m, n, static_cast<std::int64_t>(m)), "layout C");
    check(lt_.preference_create(&pref_), "PreferenceCreate");
    const std::size_t ws = kWorkspace;
    check(lt_.preference_set_attribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                       sizeof(ws)),
          "workspace");
  }
  void matmul(const cublasLtMatmulAlgo_t& algo) {
    const double alpha64 = 1, beta64 = 0;
    const float alpha32 = 1, beta32 = 0;
    const bool wide = t_.scale == CUDA_R_64F;
    check(lt_.matmul(handle_, desc_, wide ? static_cast<const void*>(&alpha64) : &alpha32, a_, la_,
                     b_, lb_, wide ? static_cast<const void*>(&beta64) : &beta32, c_, lc_, c_, lc_,
                     &algo, workspace_, kWorkspace, stream_),
          "cublasLtMatmul");
  }
  std::size_t c_bytes() const {
    return bytes_of(t_.c) * static_cast<std::size_t>(p_.shape.m * p_.shape.n);
  }
  // The determinism check's algorithm: the heuristics' first candidate among those without a
  // split-K reduction (CUBLASLT_REDUCTION_SCHEME_NONE), with the same workspace on every rank;
  // never timed, so every rank of a GPU model runs the same kernel.
  void first_algorithm() {
    const std::uint32_t none = CUBLASLT_REDUCTION_SCHEME_NONE;
    check(lt_.preference_set_attribute(pref_, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &none,
                                       sizeof(none)),
          "reduction scheme");
    cublasLtMatmulHeuristicResult_t result = {};
    int found = 0;
    check(lt_.algo_get_heuristic(handle_, desc_, la_, lb_, lc_, lc_, pref_, 1, &result, &found),
          "AlgoGetHeuristic");
    if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(
          fmt::format("cuBLASLt has no algorithm without split-K reduction for {} {}x{}x{}",
                      kDTypeNames.name(p_.dtype), p_.shape.m, p_.shape.n, p_.shape.k));
    algo_ = result.algo;
    kept_ = 0;
  }
  // The heuristics' top candidates, each timed on this GPU; the fastest is kept.
  void choose_algorithm() {
    cublasLtMatmulHeuristicResult_t results[kCandidates] = {};
    int found = 0;
    check(lt_.algo_get_heuristic(handle_, desc_, la_, lb_, lc_, lc_, pref_, kCandidates, results,
                                 &found),
          "AlgoGetHeuristic");
    if (found == 0)
      throw std::runtime_error(fmt::format("cuBLASLt has no algorithm for {} {}x{}x{}",
                                           kDTypeNames.name(p_.dtype), p_.shape.m, p_.shape.n,
                                           p_.shape.k));
    float best = INFINITY;
    for (int i = 0; i < found; ++i) {
      if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
      matmul(results[i].algo);  // warm-up
      timer_->start();
      for (int r = 0; r < kTrialRuns; ++r) matmul(results[i].algo);
      timer_->stop();
      const auto t = static_cast<float>(timer_->seconds());
      if (t < best) {
        best = t;
        kept_ = i;
        algo_ = results[i].algo;
      }
    }
    wait();
  }

  GemmPoint p_;
  LtTypes t_;
  CublasLtLibrary lt_;
  cublasLtHandle_t handle_;
  std::vector<Element> samples_;
  cudaStream_t own_stream_{};
  cudaStream_t stream_{};  // own_stream_, or the one use_stream() gave
  std::unique_ptr<gpu::EventTimer> timer_;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr, *workspace_ = nullptr;
  cublasLtMatmulDesc_t desc_{};
  cublasLtMatrixLayout_t la_{}, lb_{}, lc_{};
  cublasLtMatmulPreference_t pref_{};
  cublasLtMatmulAlgo_t algo_{};
  std::int64_t kept_ = -1;
  bool filled_ = false;
  unsigned long long* hash_sum_ = nullptr;   // device
  unsigned long long* hash_host_ = nullptr;  // pinned
};

gpu::Precision precision_of(DType d) {
  switch (d) {
    case DType::kFloat64:
      return gpu::Precision::kFp64;
    case DType::kFloat32:
      return gpu::Precision::kFp32;
    case DType::kTf32:
      return gpu::Precision::kTf32;
    case DType::kFloat16:
      return gpu::Precision::kFp16;
    case DType::kBfloat16:
      return gpu::Precision::kBf16;
    case DType::kFp8E4m3:
    case DType::kFp8E5m2:
      return gpu::Precision::kFp8;
  }
  return gpu::Precision::kFp32;
}

class CublasLtBackend final : public GemmBackend {
 public:
  explicit CublasLtBackend(int local_rank) : lt_(open_cublaslt_library()) {
    if (!lt_.why_not.empty()) {
      why_not_ = fmt::format("cuBLASLt cannot be loaded ({})", lt_.why_not);
      return;
    }
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      why_not_ =
          fmt::format("no GPU ({})", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
      return;
    }
    device_ = local_rank % count;
    check(cudaSetDevice(device_), "cudaSetDevice");
    check(cudaGetDeviceProperties(&prop_, device_), "cudaGetDeviceProperties");
    check(cudaDeviceGetAttribute(&clock_khz_, cudaDevAttrClockRate, device_), "clock rate");
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), device_) == cudaSuccess) bus_ = bus;
    check(lt_.create(&handle_), "cublasLtCreate");
  }
  ~CublasLtBackend() override {
    if (handle_) lt_.destroy(handle_);
  }
  std::string_view name() const override { return "cublaslt"; }
  std::string library() const override {
    return fmt::format("cuBLASLt {} on {} (sm_{}{}), top {} heuristic candidates timed",
                       lt_.get_version(), prop_.name, prop_.major, prop_.minor, kCandidates);
  }
  bool on_gpu() const override { return true; }
  bool supports(DType d) const override {
    if (!why_not_.empty()) return false;
    const int cc = prop_.major * 10 + prop_.minor;
    if (d == DType::kFp8E4m3 || d == DType::kFp8E5m2) return cc >= 89;
    if (d == DType::kTf32 || d == DType::kBfloat16) return cc >= 80;
    return true;
  }
  std::string unavailable() const override { return why_not_; }
  std::string pci_bus() const override { return bus_; }
  // The datasheet's dense figure for this part (bench/gpu/known_gpus.hpp), never one computed
  // from the clock: cudaDevAttrClockRate is the boost clock, above the one NVIDIA's tensor-core
  // figures use, so a computed peak would make every GEMM look 8% slower than it is.
  Peak peak(DType d, const CpuPeakInputs&) const override {
    Peak p;
    if (const gpu::DatasheetFigures* part = gpu::known_gpu(prop_.name)) {
      p.tflops = gpu::dense_tflops(*part, precision_of(d));
      p.source = fmt::format("{}: {} TFLOP/s dense {} from the {}", part->part, p.tflops,
                             kDTypeNames.name(d), part->source);
      if (p.tflops == 0) p.tflops = std::nan("");
      return p;
    }
    p.tflops = std::nan("");
    p.source = fmt::format(
        "unknown: '{}' (sm_{}{}, {} SMs, boost clock {:.3f} GHz) is not in preflight's table of "
        "datasheet figures (bench/gpu/known_gpus.hpp); no peak is computed from the clock",
        prop_.name, prop_.major, prop_.minor, prop_.multiProcessorCount, clock_khz_ / 1e6);
    return p;
  }
  // fp8 runs as cuBLASLt's plainest fp8 GEMM: a figure beside a framework's says so.
  std::string dtype_note(DType d) const override {
    if (d != DType::kFp8E4m3 && d != DType::kFp8E5m2) return "";
    return "; fp8: A and B unscaled (no A/B scale pointers), bf16 output, FP32 accumulation "
           "without CUBLASLT_MATMUL_DESC_FAST_ACCUM (Transformer Engine's forward GEMMs turn fast "
           "accumulation on, and run faster)";
  }
  std::string device_model() const override { return prop_.name; }
  std::string deterministic_library() const override {
    return fmt::format("cuBLASLt {} (sm_{}{})", lt_.get_version(), prop_.major, prop_.minor);
  }
  // cuBLAS promises the same bits only on the same architecture and SM count, and its
  // heuristics depend on the driver.
  std::string determinism_class(int /*threads*/) const override {
    return fmt::format("{} SMs, {}", prop_.multiProcessorCount, driver_text());
  }
  std::string determinism(int /*threads*/) const override {
    return fmt::format(
        "cuBLASLt's first heuristic candidate with CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = "
        "CUBLASLT_REDUCTION_SCHEME_NONE (no split-K reduction), {} MiB workspace on every rank, "
        "never the timed choice; the same seeded inputs made on every GPU",
        kWorkspace >> 20);
  }
  std::unique_ptr<GemmOperation> make_operation(const GemmPoint& p) override {
    check(cudaSetDevice(device_), "cudaSetDevice");
    return std::make_unique<LtGemm>(p, lt_, handle_);
  }

 private:
  CublasLtLibrary lt_;
  std::string why_not_;
  int device_ = 0, clock_khz_ = 0;
  cudaDeviceProp prop_{};
  std::string bus_;
  cublasLtHandle_t handle_ = nullptr;
};

}  // namespace

std::shared_ptr<GemmBackend> make_cublaslt_backend(int local_rank) {
  return std::make_shared<CublasLtBackend>(local_rank);
}

}  // namespace preflight::matmul
