// The collective correctness sweep (docs/correctness.md, issue 37): one case per collective,
// algorithm (NCCL: and protocol) and dtype, each on its own communicator made with that
// algorithm forced (algorithms.hpp), its points the sizes. Every run is the collective and the
// check of the rank's full result against the fill pattern (result_check.hpp), as nccl-tests -c
// checks every iteration; the output is poisoned (zeroed, which the pattern never produces)
// and the input refilled before every run, untimed, so a result left unwritten is caught. The
// timed region holds the collective and the check: checked_algbw is the check's own rate, the
// load it puts on the fabric, not a bandwidth figure. Wrong results are counted per timed
// iteration (counter wrong_elements) and the first events_kept of each rank recorded in detail
// (wrong_* series); Operation::wrong_in_runs fails the case on any of them.
#include "correctness/collective_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "comm/backend.hpp"
#include "comm/expected.hpp"
#include "comm/mpi_types.hpp"
#include "correctness/algorithms.hpp"
#include "correctness/result_check.hpp"
#include "cpu/page_aligned.hpp"
#include "cpu/pattern.hpp"
#include "preflight/common/collective_traits.hpp"
#include "preflight/common/usage_error.hpp"
#include "preflight/schema/correctness.hpp"

namespace preflight::correctness {
// Named inside the anonymous namespace: the family's files are one unity translation unit.
namespace {
namespace sweep {

namespace sc = schema::correctness;
using comm::Collective;
using comm::DType;
using comm::mpi_type;

constexpr std::string_view kMpi = "mpi";
constexpr std::string_view kNccl = "nccl";
constexpr int kRoot = 0;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// What one case forces, and how.
struct Forced {
  std::string algorithm = std::string(kDefaultAlgorithm);
  std::string protocol;                                          // NCCL only
  std::string forced_by;                                         // empty: the library's own choice
  std::vector<std::pair<std::string, int>> cvars;                // Open MPI
  std::vector<std::pair<std::string, std::string>> environment;  // NCCL
};

struct CaseSpec {
  Collective op = Collective::kAllReduce;
  DType dtype = DType::kFloat32;
  Forced forced;
  std::vector<std::uint64_t> sizes;
};

// The sweep as this job runs it, decided once per configuration (collective: every rank reads
// the same library and asks the same questions), so that skipped() and make_cases() agree.
struct Sweep {
  std::string backend;  // mpi or nccl
  std::string library;
  std::shared_ptr<comm::CommBackend> nccl;
  std::vector<CaseSpec> cases;
  std::vector<std::string> skipped;
};

// Sets variables for the life of the object, then puts back what was there.
class EnvironmentScope {
 public:
  explicit EnvironmentScope(const std::vector<std::pair<std::string, std::string>>& vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name.c_str());
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~EnvironmentScope() {
    for (const auto& [name, value] : saved_)
      value ? setenv(name.c_str(), value->c_str(), 1) : unsetenv(name.c_str());
  }
  EnvironmentScope(const EnvironmentScope&) = delete;
  EnvironmentScope& operator=(const EnvironmentScope&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Collective over `world`: "" when no rank has an error, else the first failing rank's.
std::string first_error(MPI_Comm world, std::string mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  int first = mine.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, world);
  if (first == size) return {};
  int length = static_cast<int>(mine.size());
  MPI_Bcast(&length, 1, MPI_INT, first, world);
  mine.resize(static_cast<std::size_t>(length));
  MPI_Bcast(mine.data(), length, MPI_CHAR, first, world);
  return fmt::format("rank {}: {}", first, mine);
}

std::string join(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

comm::CollectivePoint point_of(const CaseSpec& s, std::uint64_t bytes, int rank, int ranks) {
  comm::CollectivePoint p;
  p.spec.op = s.op;
  p.spec.dtype = s.dtype;
  p.spec.redop = comm::RedOp::kSum;
  p.spec.in_place = false;
  p.chunk = comm::chunk_elements(s.op, bytes, s.dtype, ranks);
  p.rank = rank;
  p.ranks = ranks;
  return p;
}

// ----------------------------------------------------------------------------------------------
// The runs' bookkeeping, for either backend: the count of each run, and the first events_kept
// wrong results in detail. A run's event is stamped with its timed iteration when the harness
// asks for the iteration's counters right after it; a run it does not ask about (the check
// before timing, warm-up) is recorded with iteration -1.
class CheckedRuns {
 public:
  explicit CheckedRuns(int kept) : kept_(static_cast<std::size_t>(kept)) {}

  void plant(int every) { every_ = every; }
  // Counts a run; true where this one is to be damaged (plant_corruption).
  bool plant_due() {
    ++runs_;
    return every_ > 0 && runs_ % static_cast<std::uint64_t>(every_) == 0;
  }

  void record(const WrongResult& w) {
    commit(-1);
    last_ = w.count;
    total_ += w.count;
    if (w.count > 0 && events_.size() < kept_) pending_ = w;
  }
  // The last run's result checked again (after corrupt_result).
  void replace_last(const WrongResult& w) {
    total_ -= last_;
    last_ = w.count;
    total_ += w.count;
    pending_.reset();
    if (w.count > 0 && events_.size() < kept_) pending_ = w;
  }

  std::uint64_t count_wrong() {
    reported_ += last_;
    return last_;
  }
  std::uint64_t wrong_in_runs() const { return total_ - reported_; }

  std::vector<double> iteration_counters() {
    commit(static_cast<double>(timed_++));
    return {static_cast<double>(last_)};
  }

  std::vector<std::vector<double>> series() {
    commit(-1);
    std::vector<std::vector<double>> out(6);
    for (const auto& [iteration, w] : events_) {
      out[0].push_back(iteration);
      out[1].push_back(detailed_ ? static_cast<double>(w.element) : kNaN);
      out[2].push_back(detailed_ ? w.expected : kNaN);
      out[3].push_back(detailed_ ? w.found : kNaN);
      out[4].push_back(static_cast<double>(w.count));
      out[5].push_back(detailed_ ? static_cast<double>(w.source) : kNaN);
    }
    return out;
  }
  // The NCCL check counts on the device and does not say which element was wrong.
  void without_detail() { detailed_ = false; }

 private:
  void commit(double iteration) {
    if (pending_) events_.emplace_back(iteration, *pending_);
    pending_.reset();
  }

  std::size_t kept_;
  int every_ = 0;
  std::uint64_t runs_ = 0, last_ = 0, total_ = 0, reported_ = 0, timed_ = 0;
  bool detailed_ = true;
  std::optional<WrongResult> pending_;
  std::vector<std::pair<double, WrongResult>> events_;
};

// ----------------------------------------------------------------------------------------------
// The MPI check: host buffers, the MPI call on the forced communicator, the full check.
template <typename T>
class MpiCheck final : public Operation {
 public:
  MpiCheck(const comm::CollectivePoint& p, MPI_Comm comm, std::shared_ptr<void> keep, int kept,
           std::string what)
      : keep_(std::move(keep)),
        p_(p),
        comm_(comm),
        type_(mpi_type(p.spec.dtype)),
        count_(static_cast<int>(p.chunk)),
        in_place_(p.spec.op == Collective::kBroadcast),  // MPI_Bcast has one buffer
        send_(in_place_ ? 0 : comm::input_elements(p)),
        recv_(comm::output_elements(p)),
        runs_(kept),
        what_(std::move(what)) {}

  // The output poisoned (zeros: the pattern's values are 1 to 61 and their sums, never 0) and
  // the input written: before the check run and, untimed, before every other run.
  void fill() override {
    std::fill(recv_.begin(), recv_.end(), T{});
    if (!comm::holds_input(p_)) return;
    comm::fill_input<T>(
        p_, in_place_ ? std::span<T>(recv_).first(comm::input_elements(p_)) : std::span<T>(send_));
  }
  void before_iteration() override { fill(); }

  void run() override {
    const int rc = call();
    if (rc != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(rc, text, &length);
      throw std::runtime_error(fmt::format("{}: the MPI call failed: {}", what_,
                                           std::string(text, static_cast<std::size_t>(length))));
    }
    if (runs_.plant_due() && comm::holds_result(p_)) flip_one_bit();
    runs_.record(check());
  }

  std::uint64_t count_wrong() override {
    if (damaged_) runs_.replace_last(check());
    damaged_ = false;
    return runs_.count_wrong();
  }
  void corrupt_result() override {
    if (!comm::holds_result(p_)) return;
    kernels::corrupt(std::span<T>(recv_).first(comm::result_elements(p_)));
    damaged_ = true;
  }
  void plant_corruption(int every) override { runs_.plant(every); }
  std::uint64_t wrong_in_runs() override { return runs_.wrong_in_runs(); }
  std::vector<double> iteration_counters() override { return runs_.iteration_counters(); }
  std::vector<std::vector<double>> series() override { return runs_.series(); }

 private:
  int call() {
    void* out = recv_.data();
    const void* in = send_.data();
    switch (p_.spec.op) {
      case Collective::kAllReduce:
        return MPI_Allreduce(in, out, count_, type_, MPI_SUM, comm_);
      case Collective::kAllGather:
        return MPI_Allgather(in, count_, type_, out, count_, type_, comm_);
      case Collective::kReduceScatter:
        return MPI_Reduce_scatter_block(in, out, count_, type_, MPI_SUM, comm_);
      case Collective::kAllToAll:
        return MPI_Alltoall(in, count_, type_, out, count_, type_, comm_);
      case Collective::kBroadcast:
        return MPI_Bcast(out, count_, type_, kRoot, comm_);
      case Collective::kReduce:
        return MPI_Reduce(in, p_.rank == kRoot ? out : nullptr, count_, type_, MPI_SUM, kRoot,
                          comm_);
      case Collective::kSendRecv:
        return MPI_Sendrecv(in, count_, type_, (p_.rank + 1) % p_.ranks, 0, out, count_, type_,
                            (p_.rank + p_.ranks - 1) % p_.ranks, 0, comm_, MPI_STATUS_IGNORE);
    }
    return MPI_ERR_OTHER;
  }

  WrongResult check() const {
    if (!comm::holds_result(p_)) return {};
    return check_result<T>(p_, std::span<const T>(recv_).first(comm::result_elements(p_)));
  }

  // Test-only (plant_corruption): one bit of one element, the middle one of the result.
  void flip_one_bit() {
    T& x = recv_[comm::result_elements(p_) / 2];
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &x, sizeof(T));
    bytes[0] ^= 1;
    std::memcpy(&x, bytes, sizeof(T));
  }

  std::shared_ptr<void> keep_;  // the case's communicator, freed after the last point's operation
  comm::CollectivePoint p_;
  MPI_Comm comm_;
  MPI_Datatype type_;
  int count_;
  bool in_place_;
  kernels::PageVector<T> send_;
  kernels::PageVector<T> recv_;
  CheckedRuns runs_;
  std::string what_;
  bool damaged_ = false;
};

std::unique_ptr<Operation> make_mpi_check(const comm::CollectivePoint& p, MPI_Comm comm,
                                          const std::shared_ptr<void>& keep, int kept,
                                          std::string what) {
  switch (p.spec.dtype) {
    case DType::kFloat32:
      return std::make_unique<MpiCheck<float>>(p, comm, keep, kept, std::move(what));
    case DType::kFloat64:
      return std::make_unique<MpiCheck<double>>(p, comm, keep, kept, std::move(what));
    case DType::kInt32:
      return std::make_unique<MpiCheck<std::int32_t>>(p, comm, keep, kept, std::move(what));
    case DType::kInt64:
      return std::make_unique<MpiCheck<std::int64_t>>(p, comm, keep, kept, std::move(what));
    case DType::kUInt32:
      return std::make_unique<MpiCheck<std::uint32_t>>(p, comm, keep, kept, std::move(what));
    case DType::kUInt64:
      return std::make_unique<MpiCheck<std::uint64_t>>(p, comm, keep, kept, std::move(what));
    case DType::kInt8:
      return std::make_unique<MpiCheck<std::int8_t>>(p, comm, keep, kept, std::move(what));
    case DType::kUInt8:
      return std::make_unique<MpiCheck<std::uint8_t>>(p, comm, keep, kept, std::move(what));
    default:
      throw std::logic_error("the sweep skips dtypes MPI has no type for");
  }
}

// ----------------------------------------------------------------------------------------------
// The NCCL check: the comm family's NCCL operation, its device-side check of the full result
// after every run, inside the host-timed region (no device timer: the time holds the check).
// The device check counts wrong elements and does not locate them: the events hold the count,
// NaN for element, values and source. A planted fault is the comm family's corrupt_result
// (every 16th element zeroed), not one bit.
class NcclCheck final : public AsyncOperation {
 public:
  NcclCheck(std::unique_ptr<Operation> inner, std::shared_ptr<void> keep, int kept)
      : keep_(std::move(keep)), inner_(std::move(inner)), runs_(kept) {
    runs_.without_detail();
  }
  void fill() override { inner_->fill(); }
  void before_iteration() override { inner_->fill(); }
  void launch() override { inner_->launch(); }
  void wait() override {
    inner_->wait();
    if (runs_.plant_due()) inner_->corrupt_result();
    WrongResult w;
    w.count = inner_->count_wrong();
    runs_.record(w);
  }
  std::uint64_t count_wrong() override {
    if (damaged_) {
      WrongResult w;
      w.count = inner_->count_wrong();
      runs_.replace_last(w);
    }
    damaged_ = false;
    return runs_.count_wrong();
  }
  void corrupt_result() override {
    inner_->corrupt_result();
    damaged_ = true;
  }
  void plant_corruption(int every) override { runs_.plant(every); }
  std::uint64_t wrong_in_runs() override { return runs_.wrong_in_runs(); }
  std::vector<double> iteration_counters() override { return runs_.iteration_counters(); }
  std::vector<std::vector<double>> series() override { return runs_.series(); }

 private:
  std::shared_ptr<void> keep_;  // the case's communicator: outlives inner_, which uses it
  std::unique_ptr<Operation> inner_;
  CheckedRuns runs_;
  bool damaged_ = false;
};

// ----------------------------------------------------------------------------------------------
// A case's communicator with its algorithm forced: an MPI duplicate, or an NCCL communicator.
struct Channel {
  MPI_Comm comm = MPI_COMM_NULL;
  std::unique_ptr<comm::CommGroup> nccl;
  Channel() = default;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  ~Channel() {
    nccl.reset();
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

class SweepCase final : public Case {
 public:
  SweepCase(CaseSpec spec, const Sweep& sweep, const CorrectnessConfig& config,
            const RankContext& ctx)
      : spec_(std::move(spec)),
        backend_(sweep.backend),
        library_(sweep.library),
        nccl_(sweep.nccl),
        kept_(config.events_kept),
        world_(ctx.world),
        rank_(ctx.rank),
        ranks_(ctx.size),
        groups_(static_cast<std::size_t>(ctx.size), 0) {}

  std::string name() const override {
    return fmt::format("{} {}{} {}", comm::name_of(spec_.op), spec_.forced.algorithm,
                       spec_.forced.protocol.empty() ? "" : " " + spec_.forced.protocol,
                       comm::name_of(spec_.dtype));
  }
  std::string backend() const override { return backend_; }
  std::vector<Param> params() const override {
    return {
        attr(sc::kCheck, sc::kCheckCollective),
        attr(sc::kEventsKept, std::int64_t{kept_}),
        attr(sc::kAlgorithm, spec_.forced.algorithm, true),
        attr(sc::kProtocol, spec_.forced.protocol, true),
        attr(sc::kForcedBy, spec_.forced.forced_by),
        attr(sc::kCommLibrary, library_),
        attr(schema::comm::kCollective, std::string(comm::name_of(spec_.op))),
        attr(schema::comm::kDtype, std::string(comm::name_of(spec_.dtype)), true),
        attr(schema::matmul::kRanks, std::int64_t{ranks_}),
    };
  }
  const schema::FamilySchema& declaration() const override { return sc::kCollectiveDeclaration; }
  schema::OwnMeaning own_meaning() const override { return {.subject = name()}; }
  const std::vector<int>& group_of_rank() const override { return groups_; }
  std::size_t point_count() const override { return spec_.sizes.size(); }

  std::vector<Param> point_columns(std::size_t point, int /*group*/) const override {
    const std::uint64_t b = bytes(point);
    return {column_param(schema::comm::kSizeBytesColumn, static_cast<std::int64_t>(b), false),
            column_param(schema::comm::kCountColumn,
                         static_cast<std::int64_t>(b / comm::size_of(spec_.dtype)), false)};
  }
  std::vector<Metric> metrics(std::size_t point, int /*group*/, double seconds) const override {
    return {metric(sc::kCheckedAlgbwColumn, static_cast<double>(bytes(point)) / seconds / 1e9)};
  }
  std::vector<Metric> sample_metrics(std::size_t, int, const SampleView& v) const override {
    std::int64_t checked = 0, wrong = 0;
    if (v.counters != nullptr && !v.counters->empty())
      for (std::size_t i = 0; i < v.iterations; ++i)
        for (int r : *v.members) {
          const double x = v.counters->front()[i * v.ranks + static_cast<std::size_t>(r)];
          if (std::isnan(x)) continue;
          ++checked;
          wrong += x > 0 ? 1 : 0;
        }
    return {metric(sc::kCheckedResultsColumn, static_cast<double>(checked)),
            metric(sc::kWrongResultsColumn, static_cast<double>(wrong))};
  }
  bool back_to_back() const override { return false; }  // every run is checked on its own
  std::vector<CounterSpec> counters() const override { return {{&sc::kWrongElementsCounter}}; }
  std::vector<CounterSpec> series() const override {
    return {{&sc::kWrongIterationSeries}, {&sc::kWrongElementSeries}, {&sc::kWrongExpectedSeries},
            {&sc::kWrongFoundSeries},     {&sc::kWrongCountSeries},   {&sc::kWrongSourceSeries}};
  }

  // The case's own communicator, made with its algorithm forced: collective over the world.
  // Held by the case until its last point's operation is made, then by that operation alone:
  // freed when the case is done (an NCCL communicator holds device memory, and a sweep makes
  // dozens), made again if the case runs again (a repetition).
  void start() override {
    if (channel_) return;
    auto channel = std::make_shared<Channel>();
    if (backend_ == kMpi) {
      channel->comm = forced_duplicate(world_, spec_.forced.cvars);
    } else {
      const EnvironmentScope scope(spec_.forced.environment);
      channel->nccl = nccl_->connect(world_);
    }
    channel_ = std::move(channel);
  }

  std::unique_ptr<Operation> make_operation(std::size_t point) override {
    start();  // a no-op after start(); here for a harness path that does not call it
    const auto p = point_of(spec_, spec_.sizes[point], rank_, ranks_);
    std::shared_ptr<Channel> channel = channel_;
    if (point + 1 == spec_.sizes.size()) channel_.reset();
    if (backend_ == kMpi) return make_mpi_check(p, channel->comm, channel, kept_, name());
    return std::make_unique<NcclCheck>(nccl_->make_operation(p, *channel->nccl), channel, kept_);
  }

 private:
  std::uint64_t bytes(std::size_t point) const {
    const auto p = point_of(spec_, spec_.sizes[point], rank_, ranks_);
    return comm::reported_bytes(spec_.op, p.chunk, spec_.dtype, ranks_);
  }

  CaseSpec spec_;
  std::string backend_, library_;
  std::shared_ptr<comm::CommBackend> nccl_;
  int kept_;
  MPI_Comm world_;
  int rank_, ranks_;
  std::vector<int> groups_;
  std::shared_ptr<Channel> channel_;
};

// ----------------------------------------------------------------------------------------------
// Deciding the sweep.

// What every backend shares: the dtypes and sizes a collective can be checked at.
bool checkable(const CorrectnessConfig& config, Collective op, DType dtype, int ranks,
               const comm::CommBackend* backend, std::vector<std::string>& skipped) {
  if (backend == nullptr && mpi_type(dtype) == MPI_DATATYPE_NULL) {
    skipped.push_back(fmt::format("{} {}: MPI has no {} type; use comm_backend nccl (on GPUs)",
                                  comm::name_of(op), comm::name_of(dtype), comm::name_of(dtype)));
    return false;
  }
  if (comm::reduces(op) && static_cast<std::uint64_t>(ranks) > comm::max_exact_sum_ranks(dtype)) {
    skipped.push_back(fmt::format(
        "{} {}: a sum over {} ranks cannot be checked exactly in {} (up to {} ranks); use a wider "
        "dtype",
        comm::name_of(op), comm::name_of(dtype), ranks, comm::name_of(dtype),
        comm::max_exact_sum_ranks(dtype)));
    return false;
  }
  (void)config;
  return true;
}

// The Open MPI sweep of one collective.
void mpi_cases(const CorrectnessConfig& config, const RankContext& ctx, Collective op, Sweep& sweep,
               std::vector<std::string>& unknown_everywhere) {
  const MpiAlgorithms algorithms = mpi_algorithms(op);
  std::vector<std::string> offered;
  for (const auto& a : algorithms.list) offered.push_back(a.name);
  const Selection selection = select_algorithms(config.algorithms, offered);
  for (const auto& name : selection.unknown) {
    sweep.skipped.push_back(fmt::format("{} {}: not an algorithm of {} for {} (it has: {})",
                                        comm::name_of(op), name, sweep.library, comm::name_of(op),
                                        offered.empty() ? "none" : join(offered)));
    unknown_everywhere.push_back(name);
  }
  std::vector<Forced> forced;
  if (selection.default_too && algorithms.current != 0)
    sweep.skipped.push_back(fmt::format(
        "{} default: not run: the job's environment forces {}={}, so the default would not be "
        "Open MPI's own choice; unset OMPI_MCA_{} (the sweep forces each algorithm itself)",
        comm::name_of(op), algorithms.cvar, algorithms.current, algorithms.cvar));
  else if (selection.default_too)
    forced.push_back({});
  if (!selection.chosen.empty() && !algorithms.why_not_forced.empty())
    sweep.skipped.push_back(fmt::format("{} {}: not run: {}", comm::name_of(op),
                                        join(selection.chosen), algorithms.why_not_forced));
  else
    for (const auto& a : algorithms.list) {
      if (std::find(selection.chosen.begin(), selection.chosen.end(), a.name) ==
          selection.chosen.end())
        continue;
      Forced f;
      f.algorithm = a.name;
      f.cvars = {{algorithms.cvar, a.value}};
      if (a.name == "segmented_ring")
        f.cvars.emplace_back(algorithms.cvar + "_segmentsize", kSegmentBytes);
      std::vector<std::string> parts;
      for (const auto& [name, value] : f.cvars) parts.push_back(fmt::format("{}={}", name, value));
      f.forced_by = fmt::format("{}", fmt::join(parts, " "));
      forced.push_back(std::move(f));
    }
  for (DType dtype : config.comm_dtypes) {
    if (!checkable(config, op, dtype, ctx.size, nullptr, sweep.skipped)) continue;
    for (std::uint64_t bytes : config.comm_sizes) {
      const auto p = point_of({op, dtype, {}, {}}, bytes, 0, ctx.size);
      if (comm::output_elements(p) > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw UsageError(fmt::format(
            "comm_sizes: {} B of {} {} on {} ranks needs {} elements in one buffer, more than one "
            "MPI call takes; use a smaller largest size or a wider dtype",
            bytes, comm::name_of(op), comm::name_of(dtype), ctx.size, comm::output_elements(p)));
    }
    for (const auto& f : forced) {
      CaseSpec spec{op, dtype, f, {}};
      // Sizes Open MPI hands to another algorithm (or fails), grouped by what runs instead.
      std::vector<std::pair<std::string, std::vector<std::string>>> instead;
      for (std::uint64_t bytes : config.comm_sizes) {
        const auto p = point_of(spec, bytes, 0, ctx.size);
        const int segment = f.cvars.size() > 1 ? kSegmentBytes : 0;
        const auto other = f.algorithm == kDefaultAlgorithm
                               ? std::nullopt
                               : ompi_runs_instead(op, f.algorithm, ctx.size, p.chunk,
                                                   static_cast<int>(comm::size_of(dtype)), segment);
        if (!other) {
          spec.sizes.push_back(bytes);
          continue;
        }
        auto it = std::find_if(instead.begin(), instead.end(),
                               [&](const auto& x) { return x.first == *other; });
        if (it == instead.end()) it = instead.insert(instead.end(), {*other, {}});
        it->second.push_back(fmt::format("{} B", bytes));
      }
      const std::string label =
          fmt::format("{} {} {}", comm::name_of(op), f.algorithm, comm::name_of(dtype));
      for (const auto& [other, sizes] : instead)
        sweep.skipped.push_back(fmt::format(
            "{}: {} not run: for that call on {} ranks {} runs {} in its place, and the case "
            "would claim an algorithm that did not run",
            label, spec.sizes.empty() ? "every size (" + join(sizes) + ")" : "size " + join(sizes),
            ctx.size, sweep.library, other));
      if (!spec.sizes.empty()) sweep.cases.push_back(std::move(spec));
    }
  }
}

// The NCCL sweep of one collective: every algorithm x protocol NCCL's version has, each tried
// once at the smallest and the largest size on a communicator of its own; one NCCL refuses (no
// NVLS on the system, no CollNet network, an algorithm the collective lacks) is a skipped line
// with NCCL's own words.
void nccl_cases(const CorrectnessConfig& config, const RankContext& ctx, Collective op,
                Sweep& sweep, std::vector<std::string>& unknown_everywhere) {
  const int version = nccl_version_code(sweep.library);
  const auto algorithms = nccl_algorithms(version);
  const auto protocols = nccl_protocols(version);
  const Selection a = select_algorithms(config.algorithms, algorithms);
  const Selection p = select_algorithms(config.protocols, protocols);
  for (const auto& name : a.unknown) unknown_everywhere.push_back(name);
  for (const auto& name : p.unknown)
    throw UsageError(fmt::format("protocols: {} is not a protocol of {} (it has: {})", name,
                                 sweep.library, join(protocols)));
  std::vector<Forced> forced;
  std::vector<std::string> set;
  for (const char* name : {"NCCL_ALGO", "NCCL_PROTO"})
    if (const char* value = std::getenv(name)) set.push_back(fmt::format("{}={}", name, value));
  if (a.default_too && !set.empty())
    sweep.skipped.push_back(fmt::format(
        "{} default: not run: the job's environment sets {}, so the default would not be NCCL's "
        "own choice; unset them (the sweep forces each algorithm and protocol itself)",
        comm::name_of(op), join(set)));
  else if (a.default_too)
    forced.push_back({});
  for (const auto& algorithm : a.chosen)
    for (const auto& protocol : p.chosen) {
      Forced f;
      f.algorithm = algorithm;
      f.protocol = protocol;
      f.environment = {{"NCCL_ALGO", algorithm}, {"NCCL_PROTO", protocol}};
      f.forced_by = fmt::format("NCCL_ALGO={} NCCL_PROTO={}", algorithm, protocol);
      forced.push_back(std::move(f));
    }
  for (const auto& f : forced) {
    std::vector<CaseSpec> specs;
    for (DType dtype : config.comm_dtypes)
      if (checkable(config, op, dtype, ctx.size, sweep.nccl.get(), sweep.skipped))
        specs.push_back({op, dtype, f, config.comm_sizes});
    if (specs.empty()) continue;
    std::string error;
    try {
      const EnvironmentScope scope(f.environment);
      auto channel = sweep.nccl->connect(ctx.world);
      for (const auto& spec : specs)
        for (std::uint64_t bytes : {config.comm_sizes.front(), config.comm_sizes.back()}) {
          auto operation =
              sweep.nccl->make_operation(point_of(spec, bytes, ctx.rank, ctx.size), *channel);
          operation->fill();
          operation->run();
          (void)operation->count_wrong();  // a wrong result is the case's to find, not a refusal
        }
    } catch (const std::exception& e) {
      error = e.what();
    }
    error = first_error(ctx.world, error);
    const std::string label = fmt::format("{} {}{}", comm::name_of(op), f.algorithm,
                                          f.protocol.empty() ? std::string() : " " + f.protocol);
    if (!error.empty()) {
      sweep.skipped.push_back(
          fmt::format("{}: {} cannot run it on this system: {}", label, sweep.library, error));
      continue;
    }
    for (auto& spec : specs) sweep.cases.push_back(std::move(spec));
  }
}

Sweep decide(const CorrectnessConfig& config, const RankContext& ctx) {
  Sweep sweep;
  comm::BackendSettings settings;
  settings.world = ctx.world;
  std::string why_not;
  if (config.comm_backend != kMpi) {
    sweep.nccl = comm::make_backend(kNccl, settings);
    why_not = sweep.nccl->unavailable(ctx.world);
  }
  if (config.comm_backend == kNccl && !why_not.empty()) {
    sweep.skipped.push_back(fmt::format(
        "collective sweep on nccl: {}: none of its cases ran; run it where every rank has a GPU, "
        "or use comm_backend auto (NCCL where a GPU is present, MPI where not)",
        why_not));
    return sweep;
  }
  sweep.backend = why_not.empty() && sweep.nccl ? std::string(kNccl) : std::string(kMpi);
  if (sweep.backend == kMpi) sweep.nccl.reset();
  sweep.library = sweep.backend == kMpi ? mpi_library() : sweep.nccl->library();
  if (ctx.size < 2) {
    sweep.skipped.push_back(
        "collective sweep: one rank moves nothing between ranks; run on 2 ranks or more");
    return sweep;
  }
  if (sweep.backend == kMpi && config.protocols != "all")
    sweep.skipped.push_back(
        fmt::format("protocols {}: not swept: protocols are NCCL's, and the sweep runs on {}",
                    config.protocols, sweep.library));
  std::vector<std::string> unknown;
  for (Collective op : config.collectives) {
    if (sweep.backend == kMpi)
      mpi_cases(config, ctx, op, sweep, unknown);
    else
      nccl_cases(config, ctx, op, sweep, unknown);
  }
  // A name no swept collective has is a misspelling: bad input, nothing run.
  for (const auto& name : unknown)
    if (std::count(unknown.begin(), unknown.end(), name) ==
        static_cast<std::ptrdiff_t>(config.collectives.size()))
      throw UsageError(fmt::format(
          "algorithms: {} is not an algorithm of {} for {}; give all, default, or the library's "
          "names (preflight correctness --help, or the skipped lines of a dry run)",
          name, sweep.library, sweep.backend == kMpi ? "any swept collective" : "NCCL_ALGO"));
  return sweep;
}

// Decided once per configuration and job: skipped() and make_cases() (once per variant) read
// the same sweep, and NCCL's trial communicators are made once.
const Sweep& sweep_of(const CorrectnessConfig& config, const RankContext& ctx) {
  static std::map<std::string, Sweep> cache;
  std::vector<std::string> collectives, dtypes;
  for (auto c : config.collectives) collectives.emplace_back(comm::name_of(c));
  for (auto t : config.comm_dtypes) dtypes.emplace_back(comm::name_of(t));
  const std::string key =
      fmt::format("{}|{}|{}|{}|{}|{}|{}", config.comm_backend, join(collectives), config.algorithms,
                  config.protocols, join(dtypes), fmt::join(config.comm_sizes, ","), ctx.size);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, decide(config, ctx)).first;
  return it->second;
}

}  // namespace sweep
}  // namespace

void check_collective_config(const ConfigNode& entry, CorrectnessConfig& config) {
  if (config.comm_sizes.empty()) entry.fail("comm_sizes", "one size or more", "none");
  if (config.comm_dtypes.empty()) entry.fail("comm_dtypes", "one dtype or more", "none");
  if (config.collectives.empty()) entry.fail("collectives", "one collective or more", "none");
  if (config.algorithms.empty())
    entry.fail("algorithms", "all, default, or the library's algorithm names", "nothing");
  if (config.protocols.empty())
    entry.fail("protocols", "all, or NCCL's protocols (LL, LL128, Simple)", "nothing");
  if (config.comm_backend == sweep::kMpi && config.protocols != "all")
    entry.fail("protocols", "all (protocols are NCCL's; comm_backend is mpi)", config.protocols);
}

std::vector<std::unique_ptr<Case>> make_collective_checks(const CorrectnessConfig& config,
                                                          const RankContext& ctx) {
  const sweep::Sweep& sweep = sweep::sweep_of(config, ctx);
  std::vector<std::unique_ptr<Case>> cases;
  for (const auto& spec : sweep.cases)
    cases.push_back(std::make_unique<sweep::SweepCase>(spec, sweep, config, ctx));
  return cases;
}

std::vector<std::string> skipped_collective_checks(const CorrectnessConfig& config,
                                                   const RankContext& ctx) {
  return sweep::sweep_of(config, ctx).skipped;
}

}  // namespace preflight::correctness
