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
};

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
};

std::vector<std::string> backend_names();
// The backend of that name for this rank (the rank picks its device from its local rank).
std::shared_ptr<GemmBackend> make_backend(const std::string& name, int local_rank);

}  // namespace preflight::matmul
