// What the matmul family asks of a GEMM library: one file per backend (OpenBLAS on the CPU,
// cuBLASLt on the GPU) behind this interface, registered in backends.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/run/case.hpp"
#include "matmul/dtype.hpp"
#include "matmul/verify.hpp"

namespace preflight::matmul {

// One rank's GEMM at one point.
struct GemmPoint {
  DType dtype = DType::kFloat32;
  Shape shape;
  int rank = 0;
  std::size_t point = 0;
  std::size_t samples = 256;  // elements of C checked
  int threads = 1;            // CPU backends: the rank's BLAS threads
  // The correctness family's determinism check (bench/correctness): >= 0, A and B are made from
  // this seed and the point alone, the same on every rank; -1 (the matmul family): from the rank
  // too (seed_of).
  std::int64_t shared_seed = -1;
  // True: a configuration whose result is bit-for-bit repeatable on every rank (cuBLASLt: the
  // heuristics' first candidate without split-K reduction, not the fastest one timed).
  bool deterministic = false;
  // True: the check before timing reads every element of C instead of `samples` of them.
  bool every_element = false;
};

// The seed of matrix 0 (A), 1 (B) or 2 (the checked elements) at this point.
inline std::uint64_t input_seed(const GemmPoint& p, int matrix) {
  return p.shared_seed >= 0
             ? shared_seed_of(static_cast<std::uint64_t>(p.shared_seed), p.point, matrix)
             : seed_of(p.rank, p.point, matrix);
}

// The elements of C the check before timing reads.
inline std::vector<Element> checked_elements(const GemmPoint& p) {
  return p.every_element ? all_elements(p.shape)
                         : pick_samples(p.shape, p.samples, input_seed(p, 2));
}

// The device's theoretical peak for a dtype, and how each factor was found.
struct Peak {
  double tflops = 0;  // NaN when unknown
  std::string source;
};

// What the CPU peak is computed from (cpu_peak.hpp); a GPU backend reads its own device.
struct CpuPeakInputs {
  int cores = 1;           // cores the rank's threads run on
  int fma_units = 0;       // per core; 0: assume 2 where the fma flag is set (cpuid cannot tell)
  double ghz = 0;          // 0: read from /sys cpufreq, else /proc/cpuinfo
  std::string root = "/";  // tests point it at a fake tree
};

// An operation that also says which algorithm it kept (a GPU backend times the heuristics'
// candidates when it is made and keeps the fastest).
class GemmOperation : public Operation {
 public:
  // The kept algorithm's place in the heuristics' list (0: their first); -1 where the library
  // chooses alone.
  virtual std::int64_t algorithm() const = 0;

  // For the correctness family's determinism check, after the GEMM (backends that support it;
  // the defaults throw): the hash of C's bytes (kernels/cpu/result_hash.hpp) computed where C
  // is, after waiting for the GEMM; C's bytes on the host; test-only, one bit of one element of
  // C flipped; the bytes of one element and its value; C set to all-ones bytes (NaN in every
  // float type) and waited for, so that a GEMM that leaves part of C unwritten fails.
  virtual std::uint64_t result_hash();
  virtual std::vector<unsigned char> result_bytes();
  virtual void flip_result_bit(std::uint64_t element, int bit);
  virtual std::size_t result_element_bytes() const;
  virtual double result_value(const unsigned char* element) const;
  virtual void poison_result();
};

class GemmBackend {
 public:
  virtual ~GemmBackend() = default;
  virtual std::string_view name() const = 0;
  // The library's version and configuration, recorded with each case.
  virtual std::string library() const = 0;
  virtual bool on_gpu() const = 0;
  virtual bool supports(DType d) const = 0;
  // "" when this rank can run the backend, else why not ("no GPU: ...").
  virtual std::string unavailable() const = 0;
  // The PCI bus id of this rank's device, for its telemetry ("" on the CPU).
  virtual std::string pci_bus() const { return ""; }
  virtual Peak peak(DType d, const CpuPeakInputs& cpu) const = 0;
  // What the library's figure for `d` is of, where it differs from what a framework runs
  // (appended to `library`); "" when nothing needs saying.
  virtual std::string dtype_note(DType d) const {
    (void)d;
    return "";
  }
  virtual std::unique_ptr<GemmOperation> make_operation(const GemmPoint& p) = 0;
  // The correctness family: the device's model (CPU model name, GPU name), the library as a
  // deterministic point runs it, and what makes that run repeatable (GemmPoint::deterministic).
  virtual std::string device_model() const { return ""; }
  virtual std::string deterministic_library() const { return library(); }
  virtual std::string determinism(int threads) const {
    (void)threads;
    return "";
  }
  // What else must match for two ranks' results to be expected bit for bit alike, beyond the
  // device model and deterministic_library() (the correctness family's classes): OpenBLAS's
  // thread count, cuBLASLt's SM count and driver. "" where nothing.
  virtual std::string determinism_class(int threads) const {
    (void)threads;
    return "";
  }
};

std::vector<std::string> backend_names();
// The backend of that name for this rank (the rank picks its device from its local rank).
std::shared_ptr<GemmBackend> make_backend(const std::string& name, int local_rank);

}  // namespace preflight::matmul
