// The NCCL backend: one rank per GPU, device buffers, NCCL collectives queued on a stream and
// timed with CUDA events, optionally replayed from a CUDA graph, checked on the GPU with the
// same pattern rules as the MPI backend (comm/expected.hpp, kernels/cuda/pattern_gpu.hpp).
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "comm/backend.hpp"
#include "comm/collective_traits.hpp"
#include "comm/expected.hpp"
#include "cuda/pattern_gpu.hpp"
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

// One NCCL communicator and the stream its operations run on, for one group.
class NcclGroup final : public CommGroup {
 public:
  NcclGroup(MPI_Comm group, int device) {
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
    check_nccl(ncclCommInitRank(&comm_, ranks, id, rank), "ncclCommInitRank");
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
  int runtime_version() const { return runtime_version_; }  // of the NCCL that runs

  // Ends every operation of the communicator, hung or not, so that the rank can leave.
  void abort() {
    if (comm_ != nullptr) ncclCommAbort(comm_);
    comm_ = nullptr;
  }

 private:
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int runtime_version_ = 0;
};

// Device memory for one buffer, registered with the communicator as asked.
class DeviceBuffer {
 public:
  DeviceBuffer(std::size_t bytes, Registration registration, const NcclGroup& group)
      : bytes_(bytes), registration_(registration), group_(group) {
    if (bytes_ == 0) return;
    if (registration_ == Registration::kWindow && group.runtime_version() < NCCL_VERSION(2, 27, 0))
      throw std::runtime_error(fmt::format(
          "registration window needs NCCL 2.27 or later, this job runs NCCL {}; use registration "
          "local or off",
          group.runtime_version()));
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

// One collective at one point on one rank.
class NcclCollective final : public AsyncOperation {
 public:
  NcclCollective(const CollectivePoint& p, NcclGroup& group, const BackendSettings& s)
      : p_(p),
        group_(group),
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
    if (s.cuda_graph) capture();
  }
  ~NcclCollective() override {
    if (graph_exec_ != nullptr) cudaGraphExecDestroy(graph_exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
    cudaFree(wrong_);
  }
  NcclCollective(const NcclCollective&) = delete;
  NcclCollective& operator=(const NcclCollective&) = delete;

  void fill() override {
    const cudaStream_t s = group_.stream();
    check_cuda(cudaMemsetAsync(recv_.data(), 0, output_elements(p_) * element_bytes_, s),
               "cudaMemsetAsync");
    if (holds_input(p_))
      check_cuda(gpu::fill_pattern(element_of(p_.spec.dtype), const_cast<void*>(source_),
                                   input_elements(p_), static_cast<std::uint64_t>(p_.rank), 0, s),
                 "fill kernel");
    check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  }

  void launch() override {
    if (graph_exec_ != nullptr)
      check_cuda(cudaGraphLaunch(graph_exec_, group_.stream()), "cudaGraphLaunch");
    else
      enqueue();
  }

  // Polls rather than blocks, as nccl-tests does, so that NCCL's asynchronous errors (a peer
  // gone, a network failure) end the wait instead of hanging it.
  void wait() override {
    const auto begin = std::chrono::steady_clock::now();
    for (;;) {
      const cudaError_t status = cudaStreamQuery(group_.stream());
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
    const cudaStream_t s = group_.stream();
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
                            result_elements(p_), group_.stream()),
               "corrupt kernel");
  }

 private:
  void* at(const DeviceBuffer& b, std::uint64_t element) const {
    return static_cast<char*>(b.data()) + element * element_bytes_;
  }

  // The NCCL call, queued on the group's stream.
  void enqueue() {
    const ncclComm_t comm = group_.comm();
    const cudaStream_t s = group_.stream();
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

  // One operation captured into a graph: launch() replays it, without NCCL's host-side
  // enqueue on every call (nccl-tests -G captures its whole loop; the device time is alike).
  // One eager operation first, so that NCCL sets up its connections (lazily, at first use)
  // outside the capture.
  void capture() {
    const cudaStream_t s = group_.stream();
    enqueue();
    check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    check_cuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal),
               "cudaStreamBeginCapture");
    enqueue();
    check_cuda(cudaStreamEndCapture(s, &graph_), "cudaStreamEndCapture");
    check_cuda(cudaGraphInstantiate(&graph_exec_, graph_, 0), "cudaGraphInstantiate");
  }

  CollectivePoint p_;
  NcclGroup& group_;
  BackendSettings settings_;
  std::size_t element_bytes_;
  DeviceBuffer send_;
  DeviceBuffer recv_;
  EventTimer timer_;
  unsigned long long* wrong_ = nullptr;  // the check kernels' counter, on the device
  const void* source_ = nullptr;
  void* target_ = nullptr;
  std::uint64_t result_offset_ = 0;  // where the checked result starts in recv_, in elements
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
};

// This rank's place on its host (the real one, not a virtual node): which GPU it takes.
struct HostPlace {
  int rank = 0;   // within the host
  int ranks = 1;  // on the host
};
HostPlace host_place(MPI_Comm world) {
  MPI_Comm host;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  HostPlace place;
  MPI_Comm_rank(host, &place.rank);
  MPI_Comm_size(host, &place.ranks);
  MPI_Comm_free(&host);
  return place;
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
  // without one says why (CUDA's own words when there is none at all).
  std::string unavailable(MPI_Comm world) override {
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    const HostPlace place = host_place(world);
    int rank = 0, size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    std::string why;
    if (status != cudaSuccess || devices == 0) {
      why = fmt::format("no GPU on rank {} ({})", rank,
                        status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device");
      devices = 0;
      cudaGetLastError();  // clear the sticky error
    } else if (place.ranks > devices) {
      why = fmt::format(
          "too few GPUs on rank {}'s host: {} ranks share {} GPU{}, and NCCL needs one GPU per "
          "rank; launch at most {} rank{} per host",
          rank, place.ranks, devices, devices == 1 ? "" : "s", devices, devices == 1 ? "" : "s");
      devices = 0;
    }
    int first_without = devices > 0 ? size : rank;
    MPI_Allreduce(MPI_IN_PLACE, &first_without, 1, MPI_INT, MPI_MIN, world);
    if (first_without == size) {
      device_ = place.rank;  // CUDA_VISIBLE_DEVICES, where the launcher set it, has ordered them
      return {};
    }
    int length = static_cast<int>(why.size());
    MPI_Bcast(&length, 1, MPI_INT, first_without, world);
    why.resize(static_cast<std::size_t>(length));
    MPI_Bcast(why.data(), length, MPI_CHAR, first_without, world);
    return why;
  }

  std::vector<Param> case_params() const override {
    const auto& a = schema::kCommGpuCaseAttributes;
    auto param = [&](std::size_t i, std::string value) {
      return Param{std::string(a[i].name), std::move(value), std::string(a[i].unit), false};
    };
    return {param(schema::kCommLaunch, settings_.cuda_graph ? "cuda-graph" : "stream"),
            param(schema::kCommRegistration,
                  std::string(registration_names().name(settings_.registration))),
            param(schema::kCommTimer, "cuda-events")};
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
