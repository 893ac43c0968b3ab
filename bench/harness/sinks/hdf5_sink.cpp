#include "harness/sinks/hdf5_sink.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <signal.h>
#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <variant>

#include "harness/run/watchdog.hpp"
#include "harness/sinks/declare.hpp"
#include "harness/sinks/summary_points.hpp"

#include "preflight/schema/layout.hpp"

namespace preflight {
namespace {

namespace s = schema;
using declare::declare_counter;
using declare::declared;
using declare::set_attributes;
using declare::set_unit_of;

template <typename T>
h5::ColumnInfo info_of(const T& item) {
  return {item.unit, item.description};
}

template <typename T, std::size_t N>
const T& item(const std::array<T, N>& table, std::string_view name) {
  for (const auto& i : table)
    if (i.name == name) return i;
  throw h5::Error(fmt::format("results schema has no item '{}'", name));
}

// Sets the attribute `name` of `table` on `object`, with its unit: the table is the one
// definition of both (an unknown name throws).
template <std::size_t N, typename V>
void set_item_attribute(hid_t object, const std::array<s::Item, N>& table, std::string_view name,
                        const V& value) {
  const s::Item& attribute = item(table, name);
  h5::set_attribute(object, attribute.name, value);
  set_unit_of(object, attribute);
}

// A stats column's declaration, on its dataset.
void declare_column(hid_t group, std::string_view name, const s::Column& column) {
  const h5::Handle set = h5::open_dataset(group, name);
  set_attributes(set.get(), s::kStatsColumnAttributes, s::values_of(column));
}

// The host's RDMA ports (kNetworkEnvironmentColumns): what a reference envelope's NIC match reads.
void write_network_environment(hid_t group, const std::vector<RankEnvironment>& env) {
  const auto& cols = s::kNetworkEnvironmentColumns;
  std::vector<std::string> ports;
  std::vector<std::int64_t> count;
  std::vector<double> gbps;
  for (const auto& e : env) {
    ports.push_back(e.rdma_ports);
    count.push_back(e.rdma_port_count);
    gbps.push_back(e.rdma_port_gbps);
  }
  h5::write_column(group, "rdma_ports", std::span<const std::string>(ports),
                   info_of(item(cols, "rdma_ports")));
  h5::write_column(group, "rdma_port_count", std::span<const std::int64_t>(count),
                   info_of(item(cols, "rdma_port_count")));
  h5::write_column(group, "rdma_port_gbps", std::span<const double>(gbps),
                   info_of(item(cols, "rdma_port_gbps")));
}

void write_environment(hid_t file, const std::vector<RankEnvironment>& env) {
  h5::Handle group = h5::create_group(file, s::kEnvironmentGroup);
  const auto& cols = s::kEnvironmentColumns;
  auto ints = [&](std::string_view name, auto field) {
    std::vector<std::int64_t> v;
    for (const auto& e : env) v.push_back(static_cast<std::int64_t>(e.*field));
    h5::write_column(group.get(), name, std::span<const std::int64_t>(v),
                     info_of(item(cols, name)));
  };
  auto strings = [&](std::string_view name, std::string RankEnvironment::*field) {
    std::vector<std::string> v;
    for (const auto& e : env) v.push_back(e.*field);
    h5::write_column(group.get(), name, std::span<const std::string>(v), info_of(item(cols, name)));
  };
  ints("rank", &RankEnvironment::rank);
  strings("host", &RankEnvironment::host);
  ints("node", &RankEnvironment::node);
  strings("node_name", &RankEnvironment::node_name);
  ints("local_rank", &RankEnvironment::local_rank);
  strings("cpu_model", &RankEnvironment::cpu_model);
  ints("cpu_cores", &RankEnvironment::cpu_cores);
  std::vector<std::uint64_t> memory;
  for (const auto& e : env) memory.push_back(e.memory_bytes);
  h5::write_column(group.get(), "memory_bytes", std::span<const std::uint64_t>(memory),
                   info_of(item(cols, "memory_bytes")));
  strings("kernel", &RankEnvironment::kernel);
  strings("mpi_library", &RankEnvironment::mpi_library);
  ints("gpu_count", &RankEnvironment::gpu_count);
  strings("gpu_model", &RankEnvironment::gpu_model);
  strings("gpu_uuid", &RankEnvironment::gpu_uuid);
  strings("gpu_driver", &RankEnvironment::gpu_driver);
  strings("cuda_runtime", &RankEnvironment::cuda_runtime);
  strings("nccl_version", &RankEnvironment::nccl_version);
  const auto& gpu_cols = s::kGpuEnvironmentColumns;
  auto gpu_strings = [&](std::string_view name, std::string RankEnvironment::*field) {
    std::vector<std::string> v;
    for (const auto& e : env) v.push_back(e.*field);
    h5::write_column(group.get(), name, std::span<const std::string>(v),
                     info_of(item(gpu_cols, name)));
  };
  gpu_strings("gpu_pci_bus_id", &RankEnvironment::gpu_pci_bus_id);
  std::vector<std::uint64_t> gpu_memory;
  std::vector<std::int64_t> nvlinks;
  for (const auto& e : env) {
    gpu_memory.push_back(e.gpu_memory_bytes);
    nvlinks.push_back(e.gpu_nvlinks);
  }
  h5::write_column(group.get(), "gpu_memory_bytes", std::span<const std::uint64_t>(gpu_memory),
                   info_of(item(gpu_cols, "gpu_memory_bytes")));
  h5::write_column(group.get(), "gpu_nvlinks", std::span<const std::int64_t>(nvlinks),
                   info_of(item(gpu_cols, "gpu_nvlinks")));
  gpu_strings("nccl_built_version", &RankEnvironment::nccl_built_version);
  gpu_strings("nccl_env", &RankEnvironment::nccl_env);
  write_network_environment(group.get(), env);
}

void write_env_checks(hid_t file, const std::vector<EnvCheck>& checks) {
  h5::Handle group = h5::create_group(file, s::kEnvChecksGroup);
  const auto column = [&](std::string_view name, const auto& value_of) {
    std::vector<std::string> v;
    for (const auto& c : checks) v.push_back(value_of(c));
    h5::write_column(group.get(), name, std::span<const std::string>(v),
                     info_of(item(s::kEnvCheckColumns, name)));
  };
  column("check", [](const EnvCheck& c) { return c.check; });
  column("status", [](const EnvCheck& c) { return std::string(status_name(c.status)); });
  column("where", [](const EnvCheck& c) { return c.where; });
  column("detail", [](const EnvCheck& c) { return c.detail; });
  column("fix", [](const EnvCheck& c) { return c.fix; });
}

// Whether the harness or the case's family declares a case attribute of this name.
bool declared_case_attribute(const CaseRecord& r, std::string_view name) {
  const auto in = [&](const auto& table) {
    return std::any_of(table.begin(), table.end(),
                       [&](const s::Item& item) { return item.name == name; });
  };
  return in(s::kCaseAttributes) || in(s::kTimeoutCaseAttributes) ||
         in(s::kCaseHostLoadAttributes) || in(s::kSpanCaseAttributes) ||
         in(s::kCaseTimeAttributes) || in(s::kCaseSamplesAttributes) ||
         (r.declaration != nullptr && in(r.declaration->case_attributes));
}

// A case attribute nobody declared is the writer's mistake, not a figure: a reader would find a
// name SPEC.md does not list. Refused before anything of the case is written.
void require_declared_params(const CaseRecord& r) {
  for (const Param& p : r.params)
    if (!declared_case_attribute(r, p.name))
      throw std::logic_error(fmt::format(
          "case '{}': case attribute '{}' is declared neither by family '{}' nor by the harness "
          "(results-schema/include/preflight/schema/)",
          r.name, p.name, r.declaration != nullptr ? r.declaration->name : r.family));
}

void set_param_attribute(hid_t object, const Param& p) {
  std::visit([&](const auto& v) { h5::set_attribute(object, p.name, v); }, p.value);
  if (!p.unit.empty())
    h5::set_attribute(object, s::unit_attribute_name(p.name), std::string_view(p.unit));
}

// Rows of the stats table: one per point and group, in that order.
struct StatsTable {
  std::vector<const PointResult*> point_of_row;
  std::vector<const GroupResult*> group_of_row;
};

StatsTable rows_of(const CaseRecord& r) {
  StatsTable t;
  for (const auto& p : r.points)
    for (const auto& g : p.groups) {
      t.point_of_row.push_back(&p);
      t.group_of_row.push_back(&g);
    }
  return t;
}

template <typename F>
std::vector<double> doubles(const StatsTable& t, F f) {
  std::vector<double> v;
  for (std::size_t i = 0; i < t.group_of_row.size(); ++i)
    v.push_back(f(*t.point_of_row[i], *t.group_of_row[i]));
  return v;
}

template <typename F>
std::vector<std::int64_t> ints(const StatsTable& t, F f) {
  std::vector<std::int64_t> v;
  for (std::size_t i = 0; i < t.group_of_row.size(); ++i)
    v.push_back(static_cast<std::int64_t>(f(*t.point_of_row[i], *t.group_of_row[i])));
  return v;
}

void write_core_stats(hid_t stats, const StatsTable& t) {
  auto put_i = [&](std::string_view name, auto f) {
    const auto v = ints(t, f);
    h5::write_column(stats, name, std::span<const std::int64_t>(v),
                     info_of(item(s::kStatsColumns, name)));
  };
  auto put_d = [&](std::string_view name, auto f) {
    const auto v = doubles(t, f);
    h5::write_column(stats, name, std::span<const double>(v),
                     info_of(item(s::kStatsColumns, name)));
  };
  using P = PointResult;
  using G = GroupResult;
  put_i("point", [](const P& p, const G&) { return p.index; });
  put_i("group", [](const P&, const G& g) { return g.group; });
  put_i("group_ranks", [](const P&, const G& g) { return g.ranks; });
  put_i("iterations", [](const P& p, const G&) { return p.iterations; });
  std::vector<std::string> reasons;
  for (const auto* p : t.point_of_row) reasons.push_back(p->stop_reason);
  h5::write_column(stats, "stop_reason", std::span<const std::string>(reasons),
                   info_of(item(s::kStatsColumns, "stop_reason")));
  put_d("time_min", [](const P&, const G& g) { return g.per_iteration.min; });
  put_d("time_p5", [](const P&, const G& g) { return g.per_iteration.p5; });
  put_d("time_median", [](const P&, const G& g) { return g.per_iteration.median; });
  put_d("time_p95", [](const P&, const G& g) { return g.per_iteration.p95; });
  put_d("time_max", [](const P&, const G& g) { return g.per_iteration.max; });
  put_d("time_mean", [](const P&, const G& g) { return g.per_iteration.mean; });
  put_d("time_cv", [](const P&, const G& g) { return g.per_iteration.cv; });
  put_d("median_ci_low", [](const P&, const G& g) { return g.median_ci.low; });
  put_d("median_ci_high", [](const P&, const G& g) { return g.median_ci.high; });
  put_i("batch_blocks", [](const P& p, const G&) { return p.batch_blocks; });
  put_i("batch_ops", [](const P& p, const G&) { return p.batch_ops; });
  put_d("batched_time_median", [](const P&, const G& g) { return g.batched.median; });
  put_d("batched_time_min", [](const P&, const G& g) { return g.batched.min; });
  put_d("batched_time_max", [](const P&, const G& g) { return g.batched.max; });
  std::vector<std::uint64_t> wrong;
  for (const auto* g : t.group_of_row) wrong.push_back(g->wrong);
  h5::write_column(stats, "wrong", std::span<const std::uint64_t>(wrong),
                   info_of(item(s::kStatsColumns, "wrong")));
  for (const auto& c : s::kStatsColumns) declare_column(stats, c.name, c);
}

// The family's own point columns, in the type each value has.
void write_family_columns(hid_t stats, const StatsTable& t) {
  const auto& first = t.group_of_row.front()->columns;
  for (std::size_t c = 0; c < first.size(); ++c) {
    const Param& p0 = first[c];
    const s::Column& column = declared(p0.column, "point column", p0.name);
    const h5::ColumnInfo info = info_of(column);
    if (std::holds_alternative<std::string>(p0.value)) {
      std::vector<std::string> v;
      for (const auto* g : t.group_of_row) v.push_back(std::get<std::string>(g->columns[c].value));
      h5::write_column(stats, p0.name, std::span<const std::string>(v), info);
    } else if (std::holds_alternative<double>(p0.value)) {
      std::vector<double> v;
      for (const auto* g : t.group_of_row) v.push_back(std::get<double>(g->columns[c].value));
      h5::write_column(stats, p0.name, std::span<const double>(v), info);
    } else {
      std::vector<std::int64_t> v;
      for (const auto* g : t.group_of_row) v.push_back(std::get<std::int64_t>(g->columns[c].value));
      h5::write_column(stats, p0.name, std::span<const std::int64_t>(v), info);
    }
    declare_column(stats, p0.name, column);
  }
}

void write_metrics(hid_t stats, const StatsTable& t) {
  const auto& first = *t.group_of_row.front();
  for (std::size_t m = 0; m < first.metrics.size(); ++m) {
    std::vector<double> per_iteration, batched;
    for (const auto* g : t.group_of_row) {
      per_iteration.push_back(g->metrics[m].value);
      if (m < g->batched_metrics.size()) batched.push_back(g->batched_metrics[m].value);
    }
    const Metric& metric = first.metrics[m];
    const s::Column& column = declared(metric.column, "metric", metric.name);
    // The case's time metrics come first and have a batched twin (when there was a
    // back-to-back phase); figures from samples and counters follow, once.
    const bool twin = m < first.batched_metrics.size();
    h5::write_column(stats, column.name, std::span<const double>(per_iteration), info_of(column));
    declare_column(stats, column.name, column);
    if (twin) {
      const s::Column& b = declared(metric.batched, "the batched twin of metric", metric.name);
      h5::write_column(stats, b.name, std::span<const double>(batched), info_of(b));
      declare_column(stats, b.name, b);
    }
  }
}

void write_points(hid_t case_group, const CaseRecord& r) {
  h5::Handle points = h5::create_group(case_group, s::kPointsGroup);
  const std::size_t ranks = r.group_of_rank.size();
  for (const auto& p : r.points) {
    h5::Handle g = h5::create_group(points.get(), fmt::format("{:04d}", p.index));
    h5::write_matrix(g.get(), s::kSamples, static_cast<std::size_t>(p.iterations), ranks, p.samples,
                     {"s", "per-iteration time, iteration x rank; NaN where the rank idled"});
    h5::write_matrix(
        g.get(), s::kBatched, static_cast<std::size_t>(p.batch_blocks), ranks, p.batched,
        {"s", "back-to-back time per operation, block x rank; NaN where the rank idled"});
    h5::write_column(g.get(), s::kWrongPerRank, std::span<const std::uint64_t>(p.wrong_per_rank),
                     {"elements", "wrong result elements per rank"});
    if (!p.starts.empty())
      h5::write_matrix(g.get(), s::kStarts, static_cast<std::size_t>(p.iterations), ranks, p.starts,
                       {"s",
                        "start of each rank's timed iteration on rank 0's clock, after the "
                        "first rank's, iteration x rank; NaN where the rank idled"});
    if (!p.counter_specs.empty()) {
      h5::Handle counters = h5::create_group(g.get(), s::kCountersGroup);
      for (std::size_t i = 0; i < p.counter_specs.size(); ++i) {
        const s::Column& spec = declared(p.counter_specs[i].column, "counter", "?");
        h5::write_matrix(counters.get(), spec.name, static_cast<std::size_t>(p.iterations), ranks,
                         p.counters[i], info_of(spec));
        declare_counter(counters.get(), spec.name, spec);
      }
    }
    if (!p.series_specs.empty()) {
      h5::Handle series = h5::create_group(g.get(), s::kSeriesGroup);
      for (std::size_t i = 0; i < p.series_specs.size(); ++i) {
        const s::Column& spec = declared(p.series_specs[i].column, "series", "?");
        h5::write_matrix(series.get(), spec.name, p.series_rows[i], ranks, p.series[i],
                         info_of(spec));
        declare_counter(series.get(), spec.name, spec);
        const h5::Handle set = h5::open_dataset(series.get(), spec.name);
        h5::set_attribute(set.get(), s::kIntervalAttribute, p.series_specs[i].interval_s);
        if (const s::SeriesWatch* watch = p.series_specs[i].watch;
            watch != nullptr && watch->rule != s::Watch::kNone)
          set_attributes(set.get(), s::kSeriesWatchAttributes, s::values_of(*watch));
      }
    }
  }
}

}  // namespace

std::string utc_timestamp() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::time_point_cast<std::chrono::seconds>(
                                                  std::chrono::system_clock::now()));
}

namespace {

// Signals that end the job (mpirun forwards SIGTERM when a rank dies) wait until a write is
// whole: the file is consistent between writes, never in the middle of one.
class SignalsDeferred {
 public:
  SignalsDeferred() {
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &previous_);
  }
  ~SignalsDeferred() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsDeferred(const SignalsDeferred&) = delete;
  SignalsDeferred& operator=(const SignalsDeferred&) = delete;

 private:
  sigset_t previous_{};
};

void write_case(hid_t file, const CaseRecord& r, const std::string& status, bool summaries) {
  require_declared_params(r);
  h5::Handle cases = h5::open_group(file, s::kCasesGroup);
  h5::Handle g = h5::create_group(cases.get(), fmt::format("{:06d}", r.index));
  namespace h = s::harness;
  const auto set = [&](const auto& attribute, const auto& value) {
    set_item_attribute(g.get(), s::kCaseAttributes, attribute.name, value);
  };
  set(h::kIndex, static_cast<std::int64_t>(r.index));
  set(h::kName, std::string_view(r.name));
  set(h::kFamily, std::string_view(r.family));
  set(h::kBackend, std::string_view(r.backend));
  set(h::kWrongElements, r.wrong_elements);
  set(h::kGroupCount, std::int64_t{r.group_count});
  set(h::kTimeoutS, r.timeout_s);
  for (const auto& p : r.params) set_param_attribute(g.get(), p);
  set_attributes(g.get(), s::kCaseMeaningAttributes, s::values_of(r.meaning));
  const auto host = [&](std::string_view name, double value) {
    set_item_attribute(g.get(), s::kCaseHostLoadAttributes, name, value);
  };
  host(s::kHostCpuStolenAttribute, r.host_load.stolen);
  host(s::kHostCpuForeignAttribute, r.host_load.foreign);
  host(s::kHostCpuSecondsAttribute, r.host_load.cpu_s);
  std::vector<std::int64_t> group_of_rank(r.group_of_rank.begin(), r.group_of_rank.end());
  h5::write_column(g.get(), s::kGroupOfRank, std::span<const std::int64_t>(group_of_rank),
                   {"", "group index of each world rank; -1 where the rank idled"});
  if (!r.points.empty()) {
    const StatsTable table = rows_of(r);
    h5::Handle stats = h5::create_group(g.get(), s::kStatsGroup);
    write_core_stats(stats.get(), table);
    write_family_columns(stats.get(), table);
    write_metrics(stats.get(), table);
  }
  set_item_attribute(g.get(), s::kCaseSamplesAttributes, h::kSamplesForm.name,
                     summaries ? s::samples_form::kSummary : s::samples_form::kFull);
  if (summaries)
    write_summary_points(g.get(), r);
  else
    write_points(g.get(), r);
  // Last: a case whose write was cut short has no status, and --resume runs it again.
  set(h::kStatus, std::string_view(status));
}

void write_run_start(hid_t f, const RunInfo& run, const std::vector<RankEnvironment>& environment) {
  const auto set = [&](std::string_view name, const auto& value) {
    set_item_attribute(f, s::kRunAttributes, name, value);
  };
  set("schema_version", std::int64_t{s::kVersion});
  set("preflight_version", std::string_view(PREFLIGHT_VERSION));
  set("git_revision", std::string_view(PREFLIGHT_GIT_REVISION));
  set("command_line", std::string_view(run.command_line));
  set("config", std::string_view(run.config_json));
  set("start_time", std::string_view(run.start_time));
  set("end_time", std::string_view(""));
  set("status", s::run_status::kIncomplete);
  set("exit_code", std::int64_t{-1});
  set("resumes", std::string_view("[]"));
  set("world_size", std::int64_t{run.world_size});
  set("node_count", std::int64_t{run.node_count});
  if (!run.skipped.empty())
    h5::set_attribute(f, s::kSkippedAttribute,
                      std::string_view(nlohmann::json(run.skipped).dump()));
  if (!run.scheduler_json.empty())
    h5::set_attribute(f, s::kSchedulerAttribute, std::string_view(run.scheduler_json));
  if (run.soak_s > 0) set_item_attribute(f, s::kSoakRunAttributes, s::kSoakAttribute, run.soak_s);
  write_environment(f, environment);
  if (!run.env_checks.empty()) write_env_checks(f, run.env_checks);
  h5::create_group(f, s::kCasesGroup);
}

// Text the run composes as it goes (a timeout's verdict names every rank that stayed away),
// cut to what an attribute holds: the whole text is on the console and in the job's log.
std::string fitting(const std::string& text) {
  if (text.size() <= h5::kLongestStringAttribute) return text;
  const std::string cut =
      fmt::format(" ... (cut here: {} bytes in all, the log has them)", text.size());
  return text.substr(0, h5::kLongestStringAttribute - cut.size()) + cut;
}

// The run's own text must fit its attributes before the file is made: a file refused halfway
// would be left behind.
void check_fits(std::string_view name, const std::string& text) {
  if (text.size() > h5::kLongestStringAttribute)
    throw h5::Error(fmt::format(
        "the {} is {} bytes; a results file holds at most {} bytes of it (a longer attribute "
        "would be stored without a checksum)",
        name, text.size(), h5::kLongestStringAttribute));
}

}  // namespace

std::unique_ptr<Hdf5Sink> Hdf5Sink::create(const std::string& path, const RunInfo& run,
                                           const std::vector<RankEnvironment>& environment) {
  check_fits("effective config as JSON", run.config_json);
  check_fits("command line", run.command_line);
  const SignalsDeferred deferred;
  std::unique_ptr<Hdf5Sink> sink(new Hdf5Sink(h5::create_file(path), run.summary_points));
  write_run_start(sink->file_.get(), run, environment);
  h5::flush(sink->file_.get());
  return sink;
}

ExistingCases Hdf5Sink::inspect(const std::string& path) {
  h5::Handle file = h5::open_file_read(path);
  const hid_t f = file.get();
  if (!h5::has_attribute(f, "schema_version") || !h5::exists(f, s::kCasesGroup))
    throw h5::Error(fmt::format("{} is no preflight results file", path));
  if (h5::int_attribute(f, "schema_version") != s::kVersion)
    throw h5::Error(fmt::format("{} has schema version {}, this preflight writes {}", path,
                                h5::int_attribute(f, "schema_version"), s::kVersion));
  ExistingCases existing;
  existing.config = h5::string_attribute(f, "config");
  existing.world_size = h5::int_attribute(f, "world_size");
  existing.node_count = h5::int_attribute(f, "node_count");
  h5::Handle cases = h5::open_group(f, s::kCasesGroup);
  for (const auto& name : h5::child_names(cases.get())) {
    h5::Handle c = h5::open_group(cases.get(), name);
    const std::string status =
        h5::has_attribute(c.get(), "status") ? h5::string_attribute(c.get(), "status") : "";
    if (status != s::case_status::kOk && status != s::case_status::kFailed) {
      existing.unfinished.push_back(name);
      continue;
    }
    existing.finished.push_back(static_cast<std::size_t>(h5::int_attribute(c.get(), "index")));
    existing.names.push_back(h5::string_attribute(c.get(), "name"));
    if (h5::has_attribute(c.get(), s::harness::kDurationS.name))
      existing.soaked_s += h5::double_attribute(c.get(), s::harness::kDurationS.name);
    existing.any_failed = existing.any_failed || status == s::case_status::kFailed;
  }
  return existing;
}

std::unique_ptr<Hdf5Sink> Hdf5Sink::resume(const std::string& path, const RunInfo& run,
                                           const ExistingCases& existing) {
  const SignalsDeferred deferred;
  std::unique_ptr<Hdf5Sink> sink(new Hdf5Sink(h5::open_file_write(path), run.summary_points));
  const hid_t f = sink->file_.get();
  h5::Handle cases = h5::open_group(f, s::kCasesGroup);
  for (const auto& name : existing.unfinished)
    if (H5Ldelete(cases.get(), name.c_str(), H5P_DEFAULT) < 0)
      throw h5::Error(
          fmt::format("HDF5: cannot remove the unfinished case {} from {}", name, path));
  auto resumes = nlohmann::json::parse(h5::string_attribute(f, "resumes"));
  resumes.push_back({{"start_time", run.start_time}, {"command_line", run.command_line}});
  h5::set_attribute(f, "resumes", std::string_view(resumes.dump()));
  h5::set_attribute(f, "status", s::run_status::kIncomplete);
  h5::set_attribute(f, "exit_code", std::int64_t{-1});
  h5::set_attribute(f, "end_time", std::string_view(""));
  h5::flush(f);
  return sink;
}

void Hdf5Sink::case_finished(const CaseRecord& r) {
  const SignalsDeferred deferred;
  write_case(file_.get(), r, r.status, summaries_);
  h5::flush(file_.get());
}

void Hdf5Sink::case_timed_out(const CaseRecord& partial, const TimeoutVerdict& verdict) {
  write_case(file_.get(), partial, std::string(s::case_status::kTimeout), summaries_);
  h5::Handle cases = h5::open_group(file_.get(), s::kCasesGroup);
  h5::Handle g = h5::open_group(cases.get(), fmt::format("{:06d}", partial.index));
  set_item_attribute(g.get(), s::kTimeoutCaseAttributes, s::harness::kTimeoutMessage.name,
                     std::string_view(fitting(verdict.message)));
  set_item_attribute(g.get(), s::kTimeoutCaseAttributes, s::harness::kTimeoutReason.name,
                     std::string_view(name_of(verdict.reason)));
  if (verdict.reason == TimeoutReason::kCaseBudget)
    set_item_attribute(g.get(), s::kTimeoutCaseAttributes, s::harness::kCaseBudgetS.name,
                       verdict.limit_s);
  std::vector<std::int64_t> ranks(verdict.not_arrived.begin(), verdict.not_arrived.end());
  h5::write_column(g.get(), "not_arrived", std::span<const std::int64_t>(ranks),
                   {"", "ranks that were not waiting inside MPI when the case timed out"});
  h5::flush(file_.get());
}

void Hdf5Sink::run_finished(const std::string& status, int exit_code, const std::string& note) {
  const SignalsDeferred deferred;
  h5::set_attribute(file_.get(), "status", std::string_view(status));
  h5::set_attribute(file_.get(), "exit_code", std::int64_t{exit_code});
  h5::set_attribute(file_.get(), "end_time", std::string_view(utc_timestamp()));
  if (!note.empty()) h5::set_attribute(file_.get(), "status_note", std::string_view(fitting(note)));
  h5::flush(file_.get());
}

}  // namespace preflight
