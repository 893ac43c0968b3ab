// The NCCL backend: one rank per GPU, device buffers, NCCL collectives queued on a stream and
// timed with CUDA events, optionally replayed from a CUDA graph, checked on the GPU with the
// same pattern rules as the MPI backend (comm/expected.hpp, kernels/cuda/pattern_gpu.hpp).
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "comm/backend.hpp"
#include "comm/expected.hpp"
#include "comm/nccl_env.hpp"
#include "cuda/pattern_gpu.hpp"
#include "gpu/device_choice.hpp"
#include "gpu/stream_bound.hpp"
#include "preflight/common/collective_traits.hpp"
#include "preflight/schema/comm.hpp"

namespace preflight::comm {
namespace {

namespace gpu = kernels::gpu;
constexpr int kRoot = 0;

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(status)));
}

void check_nccl(ncclResult_t status, const char* what, ncclComm_t comm = nullptr) {
  if (status == ncclSuccess) return;
  const char* detail = comm != nullptr ? ncclGetLastError(comm) : nullptr;
  throw std::runtime_error(fmt::format(
      "{}: {}{}", what, ncclGetErrorString(status),
      detail != nullptr && *detail != '\0' ? fmt::format(" ({})", detail) : std::string()));
}

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
    case DType::kInt32:
      return ncclInt32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kUInt32:
      return ncclUint32;
    case DType::kUInt64:
      return ncclUint64;
    case DType::kInt8:
      return ncclInt8;
    case DType::kUInt8:
      return ncclUint8;
    case DType::kFloat16:
      return ncclFloat16;
    case DType::kBFloat16:
      return ncclBfloat16;
  }
  return ncclFloat32;
}

gpu::Element element_of(DType t) {
  switch (t) {
    case DType::kFloat32:
      return gpu::Element::kFloat32;
    case DType::kFloat64:
      return gpu::Element::kFloat64;
    case DType::kInt32:
      return gpu::Element::kInt32;
    case DType::kInt64:
      return gpu::Element::kInt64;
    case DType::kUInt32:
      return gpu::Element::kUInt32;
    case DType::kUInt64:
      return gpu::Element::kUInt64;
    case DType::kInt8:
      return gpu::Element::kInt8;
    case DType::kUInt8:
      return gpu::Element::kUInt8;
    case DType::kFloat16:
      return gpu::Element::kFloat16;
    case DType::kBFloat16:
      return gpu::Element::kBFloat16;
  }
  return gpu::Element::kFloat32;
}

ncclRedOp_t nccl_op(RedOp op) {
  switch (op) {
    case RedOp::kMax:
      return ncclMax;
    case RedOp::kMin:
      return ncclMin;
    case RedOp::kProd:
      return ncclProd;
    default:
      return ncclSum;
  }
}

// The variables that have an ncclConfig_t field, set in the environment (a variant's, or the
// launch's), go into the communicator's config, and are taken off the environment while NCCL
// makes it: NCCL caches these variables at its first communicator for the whole process and lets
// them override the config, so the first variant's value would otherwise stick for every later
// one (docs/comm.md, "Variants").
class ConfigFromEnvironment {
 public:
  ConfigFromEnvironment() {
    for (const auto& f : nccl_config_fields()) {
      const char* value = std::getenv(std::string(f.variable).c_str());
      if (value == nullptr) continue;
      int number = 0;
      const std::string_view text(value);
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error != std::errc() || end != text.data() + text.size())
        throw std::runtime_error(
            fmt::format("{}='{}': expected a whole number (NCCL's config "
                        "field {})",
                        f.variable, text, f.field));
      set_field(f.field, number);
      saved_.emplace_back(std::string(f.variable), std::string(text));
      unsetenv(saved_.back().first.c_str());
    }
  }
  ~ConfigFromEnvironment() {
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }
  ConfigFromEnvironment(const ConfigFromEnvironment&) = delete;
  ConfigFromEnvironment& operator=(const ConfigFromEnvironment&) = delete;
  ncclConfig_t* config() { return &config_; }

 private:
  void set_field(std::string_view field, int v) {
    if (field == "minCTAs") config_.minCTAs = v;
    if (field == "maxCTAs") config_.maxCTAs = v;
    if (field == "cgaClusterSize") config_.cgaClusterSize = v;
    if (field == "collnetEnable") config_.collnetEnable = v;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    if (field == "nvlsCTAs") config_.nvlsCTAs = v;
    if (field == "nChannelsPerNetPeer") config_.nChannelsPerNetPeer = v;
    if (field == "CTAPolicy") config_.CTAPolicy = v;
    if (field == "nvlinkCentricSched") config_.nvlinkCentricSched = v;
#endif
  }

  ncclConfig_t config_ = NCCL_CONFIG_INITIALIZER;
  std::vector<std::pair<std::string, std::string>> saved_;
};

// One NCCL communicator and the stream its operations run on, for one group, on the rank's GPU.
class NcclGroup final : public CommGroup {
 public:
  NcclGroup(MPI_Comm group, int device) : device_(device) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(group, &rank);
    MPI_Comm_size(group, &ranks);
    // Rank 0 makes the id and every rank learns whether that worked, so all fail together.
    ncclUniqueId id{};
    int made = 1;
    if (rank == kRoot) made = ncclGetUniqueId(&id) == ncclSuccess ? 1 : 0;
    MPI_Bcast(&made, 1, MPI_INT, kRoot, group);
    if (made == 0) throw std::runtime_error("ncclGetUniqueId failed on the group's rank 0");
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, kRoot, group);
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_nccl(ncclGetVersion(&runtime_version_), "ncclGetVersion");
    {
      ConfigFromEnvironment from_environment;
      check_nccl(ncclCommInitRankConfig(&comm_, ranks, id, rank, from_environment.config()),
                 "ncclCommInitRankConfig");
    }
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~NcclGroup() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    if (comm_ != nullptr) ncclCommDestroy(comm_);
  }
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  int device() const { return device_; }
  int runtime_version() const { return runtime_version_; }  // of the NCCL that runs

  // Ends every operation of the communicator, hung or not, so that the rank can leave.
  void abort() {
    if (comm_ != nullptr) ncclCommAbort(comm_);
    comm_ = nullptr;
  }

 private:
  int device_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int runtime_version_ = 0;
};

// Makes `device` current on the calling thread, and returns it: the first member of an
// operation, so that its buffers, events and graphs are made on the group's GPU.
int made_current(int device) {
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  return device;
}

// Device memory for one buffer, registered with the communicator as asked.
class DeviceBuffer {
 public:
  DeviceBuffer(std::size_t bytes, Registration registration, const NcclGroup& group)
      : bytes_(bytes), registration_(registration), group_(group) {
    if (bytes_ == 0) return;
    if (registration_ == Registration::kOff) {
      check_cuda(cudaMalloc(&data_, bytes_), "cudaMalloc");
      return;
    }
    // NCCL's allocator gives memory registration can map (cuMem, granularity-aligned).
    const ncclComm_t comm = group_.comm();
    check_nccl(ncclMemAlloc(&data_, bytes_), "ncclMemAlloc", comm);
    if (registration_ == Registration::kLocal)
      check_nccl(ncclCommRegister(comm, data_, bytes_, &handle_), "ncclCommRegister", comm);
    else
      check_nccl(ncclCommWindowRegister(comm, data_, bytes_, &window_, NCCL_WIN_COLL_SYMMETRIC),
                 "ncclCommWindowRegister", comm);
  }
  ~DeviceBuffer() {
    if (data_ == nullptr) return;
    if (registration_ == Registration::kOff) {
      cudaFree(data_);
      return;
    }
    // An aborted communicator (comm() null) took its registrations with it.
    if (const ncclComm_t comm = group_.comm(); comm != nullptr) {
      if (handle_ != nullptr) ncclCommDeregister(comm, handle_);
      if (window_ != nullptr) ncclCommWindowDeregister(comm, window_);
    }
    ncclMemFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }

 private:
  std::size_t bytes_;
  Registration registration_;
  const NcclGroup& group_;
  void* data_ = nullptr;
  void* handle_ = nullptr;
  ncclWindow_t window_ = nullptr;
};

// CUDA events around what the harness times, on the operations' stream.
class EventTimer final : public DeviceTimer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() override { cudaEventRecord(start_, stream_); }
  void stop() override { cudaEventRecord(stop_, stream_); }
  double seconds() override {
    float ms = 0;
    check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) / 1e3;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// A captured CUDA graph and its executable form, and how many operations it holds.
struct Graph {
  struct DestroyGraph {
    void operator()(cudaGraph_t g) const { cudaGraphDestroy(g); }
  };
  struct DestroyExec {
    void operator()(cudaGraphExec_t e) const { cudaGraphExecDestroy(e); }
  };
  std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, DestroyGraph> graph;
  std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, DestroyExec> exec;
  int ops = 0;
  explicit operator bool() const { return exec != nullptr; }
  void launch(cudaStream_t s) const {
    check_cuda(cudaGraphLaunch(exec.get(), s), "cudaGraphLaunch");
  }
};

// One collective at one point on one rank, on its group's GPU.
class NcclCollective final : public AsyncOperation, public ::preflight::gpu::StreamBound {
 public:
  NcclCollective(const CollectivePoint& p, NcclGroup& group, const BackendSettings& s)
      : device_(made_current(group.device())),
        p_(p),
        group_(group),
        stream_(group.stream()),
        settings_(s),
        element_bytes_(size_of(p.spec.dtype)),
        send_(p.spec.in_place ? 0 : input_elements(p) * element_bytes_, s.registration, group),
        recv_(output_elements(p) * element_bytes_, s.registration, group),
        timer_(group.stream()) {
    check_cuda(cudaMalloc(&wrong_, sizeof(unsigned long long)), "cudaMalloc");
    source_ = p.spec.in_place ? at(recv_, in_place_input_offset(p)) : send_.data();
    target_ = recv_.data();
    // NCCL's in-place reduce-scatter leaves rank r's result at its own chunk of the buffer.
    if (p.spec.in_place && p.spec.op == Collective::kReduceScatter)
      result_offset_ = p.chunk * static_cast<std::uint64_t>(p.rank);
    if (s.cuda_graph) {
      // One eager operation first, so that NCCL sets up its connections (lazily, at first use)
      // outside any capture.
      enqueue();
      check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      single_ = capture(1);
    }
  }
  ~NcclCollective() override { cudaFree(wrong_); }
  NcclCollective(const NcclCollective&) = delete;
  NcclCollective& operator=(const NcclCollective&) = delete;

  void fill() override {
    const cudaStream_t s = stream_;
    check_cuda(cudaMemsetAsync(recv_.data(), 0, output_elements(p_) * element_bytes_, s),
               "cudaMemsetAsync");
    if (holds_input(p_))
      check_cuda(gpu::fill_pattern(element_of(p_.spec.dtype), const_cast<void*>(source_),
                                   input_elements(p_), static_cast<std::uint64_t>(p_.rank), 0, s),
                 "fill kernel");
    check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  }

  void launch() override {
    if (single_)
      single_.launch(stream_);
    else
      enqueue();
  }

  // With cuda_graph, a block of `ops` operations is one graph of `ops` operations, captured
  // before the block is timed and replayed once: nccl-tests -G captures its timed loop so, and
  // the block's figure then holds no per-operation launch cost. Per-iteration times replay the
  // graph of one operation.
  void prepare_batch(int ops) override {
    if (!settings_.cuda_graph || ops <= 1 || batch_.ops == ops) return;
    batch_ = capture(ops);
  }
  void launch_batch(int ops) override {
    if (settings_.cuda_graph && ops > 1 && batch_.ops == ops) {
      batch_.launch(stream_);
      return;
    }
    for (int i = 0; i < ops; ++i) launch();
  }

  void* stream() const override { return stream_; }
  void use_stream(void* stream) override { stream_ = static_cast<cudaStream_t>(stream); }

  // Polls rather than blocks, as nccl-tests does, so that NCCL's asynchronous errors (a peer
  // gone, a network failure) end the wait instead of hanging it.
  void wait() override {
    const auto begin = std::chrono::steady_clock::now();
    for (;;) {
      const cudaError_t status = cudaStreamQuery(stream_);
      if (status == cudaSuccess) return;
      if (status != cudaErrorNotReady) check_cuda(status, "NCCL operation");
      ncclResult_t async = ncclSuccess;
      check_nccl(ncclCommGetAsyncError(group_.comm(), &async), "ncclCommGetAsyncError");
      if (async != ncclSuccess && async != ncclInProgress) {
        const std::string error = ncclGetErrorString(async);
        group_.abort();
        throw std::runtime_error(
            fmt::format("NCCL reported an asynchronous error: {}; communicator aborted", error));
      }
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      if (settings_.abort_after_s > 0 && waited > settings_.abort_after_s) {
        group_.abort();
        throw std::runtime_error(fmt::format(
            "a NCCL operation made no progress for {:g} s (abort_after); communicator aborted",
            settings_.abort_after_s));
      }
      std::this_thread::yield();
    }
  }

  DeviceTimer* device_timer() override { return &timer_; }

  std::uint64_t count_wrong() override {
    const cudaStream_t s = stream_;
    check_cuda(cudaMemsetAsync(wrong_, 0, sizeof(unsigned long long), s), "cudaMemsetAsync");
    const auto ranges = result_ranges(p_);
    gpu::ReducedTable table;
    bool have_table = false;
    const gpu::Element e = element_of(p_.spec.dtype);
    for (const auto& r : ranges) {
      const void* part = at(recv_, result_offset_ + r.offset);
      if (r.source != kReducedSource) {
        check_cuda(
            gpu::count_pattern_mismatches(e, part, r.count, static_cast<std::uint64_t>(r.source),
                                          r.first_index, wrong_, s),
            "check kernel");
        continue;
      }
      if (!have_table) {
        const auto values = reduced_values(p_);
        std::copy(values.begin(), values.end(), std::begin(table.value));
        have_table = true;
      }
      check_cuda(gpu::count_reduced_mismatches(e, part, r.count, table, r.first_index, wrong_, s),
                 "check kernel");
    }
    unsigned long long wrong = 0;
    check_cuda(cudaMemcpyAsync(&wrong, wrong_, sizeof(wrong), cudaMemcpyDeviceToHost, s),
               "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return wrong;
  }

  void corrupt_result() override {
    if (!holds_result(p_)) return;
    check_cuda(gpu::corrupt(element_of(p_.spec.dtype), at(recv_, result_offset_),
                            result_elements(p_), stream_),
               "corrupt kernel");
  }

 private:
  void* at(const DeviceBuffer& b, std::uint64_t element) const {
    return static_cast<char*>(b.data()) + element * element_bytes_;
  }

  // The NCCL call, queued on the operation's stream.
  void enqueue() {
    const ncclComm_t comm = group_.comm();
    const cudaStream_t s = stream_;
    const ncclDataType_t type = nccl_type(p_.spec.dtype);
    const ncclRedOp_t op = nccl_op(p_.spec.redop);
    const std::size_t count = p_.chunk;
    switch (p_.spec.op) {
      case Collective::kAllReduce:
        check_nccl(ncclAllReduce(source_, target_, count, type, op, comm, s), "ncclAllReduce",
                   comm);
        return;
      case Collective::kAllGather:
        check_nccl(ncclAllGather(source_, target_, count, type, comm, s), "ncclAllGather", comm);
        return;
      case Collective::kReduceScatter:
        check_nccl(ncclReduceScatter(source_, at(recv_, result_offset_), count, type, op, comm, s),
                   "ncclReduceScatter", comm);
        return;
      case Collective::kBroadcast:
        check_nccl(ncclBroadcast(source_, target_, count, type, kRoot, comm, s), "ncclBroadcast",
                   comm);
        return;
      case Collective::kReduce:
        check_nccl(ncclReduce(source_, target_, count, type, op, kRoot, comm, s), "ncclReduce",
                   comm);
        return;
      case Collective::kAllToAll:
        all_to_all(type, comm, s);
        return;
      case Collective::kSendRecv: {
        const int next = (p_.rank + 1) % p_.ranks, previous = (p_.rank + p_.ranks - 1) % p_.ranks;
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        check_nccl(ncclSend(source_, count, type, next, comm, s), "ncclSend", comm);
        check_nccl(ncclRecv(target_, count, type, previous, comm, s), "ncclRecv", comm);
        check_nccl(ncclGroupEnd(), "ncclGroupEnd", comm);
        return;
      }
    }
  }

  // ncclAlltoAll where the NCCL that runs has it (2.28); before, one send and one receive per
  // peer in one group, as nccl-tests does. The NCCL that runs may be older than nccl.h here.
  void all_to_all(ncclDataType_t type, ncclComm_t comm, cudaStream_t s) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    if (group_.runtime_version() >= NCCL_VERSION(2, 28, 0)) {
      check_nccl(ncclAlltoAll(source_, target_, p_.chunk, type, comm, s), "ncclAlltoAll", comm);
      return;
    }
#endif
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int q = 0; q < p_.ranks; ++q) {
      const auto offset = p_.chunk * static_cast<std::uint64_t>(q) * element_bytes_;
      check_nccl(ncclSend(static_cast<const char*>(source_) + offset, p_.chunk, type, q, comm, s),
                 "ncclSend", comm);
      check_nccl(ncclRecv(static_cast<char*>(target_) + offset, p_.chunk, type, q, comm, s),
                 "ncclRecv", comm);
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", comm);
  }

  // `ops` operations captured into one graph, on the operation's stream.
  Graph capture(int ops) {
    Graph g;
    g.ops = ops;
    check_cuda(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
               "cudaStreamBeginCapture");
    for (int i = 0; i < ops; ++i) enqueue();
    cudaGraph_t graph = nullptr;
    check_cuda(cudaStreamEndCapture(stream_, &graph), "cudaStreamEndCapture");
    g.graph.reset(graph);
    cudaGraphExec_t exec = nullptr;
    check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    g.exec.reset(exec);
    return g;
  }

  int device_;  // first: made current before the buffers below are allocated
  CollectivePoint p_;
  NcclGroup& group_;
  cudaStream_t stream_;  // the group's, unless use_stream() moved it (the step's comm stream)
  BackendSettings settings_;
  std::size_t element_bytes_;
  DeviceBuffer send_;
  DeviceBuffer recv_;
  EventTimer timer_;
  unsigned long long* wrong_ = nullptr;  // the check kernels' counter, on the device
  const void* source_ = nullptr;
  void* target_ = nullptr;
  std::uint64_t result_offset_ = 0;  // where the checked result starts in recv_, in elements
  Graph single_;                     // cuda_graph: one operation
  Graph batch_;                      // cuda_graph: a timed block's operations
};

// The GPU each rank of this rank's host (the real one, not a virtual node) took, by host rank,
// and this rank's place there. Collective over `world`.
struct HostGpus {
  int rank = 0;                   // within the host
  std::vector<std::string> gpus;  // PCI bus id of each host rank's GPU ("" for a rank without)
};
HostGpus host_gpus(MPI_Comm world, const std::string& mine) {
  constexpr int kIdBytes = 32;  // "0000:18:00.0" and room to spare
  MPI_Comm host;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  HostGpus out;
  int ranks = 1;
  MPI_Comm_rank(host, &out.rank);
  MPI_Comm_size(host, &ranks);
  std::string padded = mine;
  padded.resize(kIdBytes, '\0');
  std::string all(static_cast<std::size_t>(kIdBytes * ranks), '\0');
  MPI_Allgather(padded.data(), kIdBytes, MPI_CHAR, all.data(), kIdBytes, MPI_CHAR, host);
  MPI_Comm_free(&host);
  for (int r = 0; r < ranks; ++r)
    out.gpus.emplace_back(all.c_str() + static_cast<std::size_t>(r * kIdBytes));
  return out;
}

// The host-local rank of this rank. Collective over `world`.
int host_rank(MPI_Comm world) {
  MPI_Comm host;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int rank = 0;
  MPI_Comm_rank(host, &rank);
  MPI_Comm_free(&host);
  return rank;
}

// The GPU this rank takes among those it sees (gpu/device_choice.hpp), or why it has none.
struct DeviceOfRank {
  int device = -1;
  std::string bus_id, why_not;
};
DeviceOfRank device_of_rank(int host_rank, int world_rank) {
  DeviceOfRank d;
  int visible = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&visible);
      status != cudaSuccess || visible == 0) {
    d.why_not = fmt::format("no GPU on rank {} ({})", world_rank,
                            status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device");
    cudaGetLastError();  // clear the sticky error
    return d;
  }
  d.device = ::preflight::gpu::device_for(host_rank, visible);
  char bus[32] = {};
  d.bus_id = cudaDeviceGetPCIBusId(bus, sizeof(bus), d.device) == cudaSuccess
                 ? std::string(bus)
                 : fmt::format("device {} of rank {}", d.device, world_rank);
  return d;
}

class NcclBackend final : public CommBackend {
 public:
  explicit NcclBackend(const BackendSettings& s) : settings_(s) {}
  std::string_view name() const override { return "nccl"; }
  // NCCL counts are size_t; one buffer is bounded by memory, not the count.
  std::uint64_t max_elements() const override { return std::uint64_t{1} << 40; }
  bool supports_out_of_place(Collective) const override { return true; }
  bool supports_in_place(Collective c) const override {
    return c != Collective::kAllToAll && c != Collective::kSendRecv;
  }

  // Every rank needs a GPU of its own (NCCL refuses two ranks on one GPU); the first rank
  // without one says why (CUDA's own words when there is none at all). A rank takes its
  // host-local rank modulo the GPUs it sees: every GPU of the host under mpirun, its own alone
  // under srun --gpus-per-task=1 or --gpu-bind (device 0); what matters is that no two ranks
  // of a host take the same GPU.
  std::string unavailable(MPI_Comm world) override {
    int rank = 0, size = 1, version = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    const DeviceOfRank mine = device_of_rank(host_rank(world), rank);
    const HostGpus host = host_gpus(world, mine.bus_id);
    std::string why = mine.why_not;
    if (why.empty())
      if (const std::string shared = ::preflight::gpu::shared_gpu(host.gpus); !shared.empty())
        why = fmt::format(
            "two ranks on one GPU on rank {}'s host ({}), and NCCL needs one GPU per rank; launch "
            "at most one rank per GPU (mpirun -npernode GPUS, or srun --gpus-per-task=1)",
            rank, shared);
    if (why.empty() && settings_.registration == Registration::kWindow &&
        ncclGetVersion(&version) == ncclSuccess)
      why = window_registration_problem(version);
    int first_without = why.empty() ? size : rank;
    MPI_Allreduce(MPI_IN_PLACE, &first_without, 1, MPI_INT, MPI_MIN, world);
    if (first_without == size) {
      device_ = mine.device;
      return {};
    }
    int length = static_cast<int>(why.size());
    MPI_Bcast(&length, 1, MPI_INT, first_without, world);
    why.resize(static_cast<std::size_t>(length));
    MPI_Bcast(why.data(), length, MPI_CHAR, first_without, world);
    return why;
  }

  std::string library() const override {
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) return "NCCL";
    return fmt::format("NCCL {}.{}.{}", v / 10000, v / 100 % 100, v % 100);
  }

  std::vector<Param> case_params() const override {
    namespace c = schema::comm;
    return {attr(c::kLaunch, settings_.cuda_graph ? "cuda-graph" : "stream"),
            attr(c::kRegistration, registration_names().name(settings_.registration)),
            attr(c::kTimer, "cuda-events")};
  }

  std::unique_ptr<CommGroup> connect(MPI_Comm group) override {
    return std::make_unique<NcclGroup>(group, device_);
  }

  std::unique_ptr<Operation> make_operation(const CollectivePoint& p, CommGroup& group) override {
    return std::make_unique<NcclCollective>(p, static_cast<NcclGroup&>(group), settings_);
  }

 private:
  BackendSettings settings_;
  int device_ = 0;
};

}  // namespace

std::unique_ptr<CommBackend> make_nccl_backend(const BackendSettings& settings) {
  return std::make_unique<NcclBackend>(settings);
}

}  // namespace preflight::comm
