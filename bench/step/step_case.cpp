#include "step/step_case.hpp"

#include <fmt/format.h>

#include <map>

#include "harness/stats.hpp"
#include "preflight/schema/step.hpp"
#include "step/step_operation.hpp"

namespace preflight::step {
namespace {
namespace s = schema;

using Value = std::variant<std::int64_t, double, std::string>;

std::string_view sync_name(GradientSync g) {
  return g == GradientSync::kAllReduce ? s::kStepAllReduce : s::kStepReduceScatterAllGather;
}

std::vector<comm::Collective> collectives_of(GradientSync g) {
  if (g == GradientSync::kAllReduce) return {comm::Collective::kAllReduce};
  return {comm::Collective::kReduceScatter, comm::Collective::kAllGather};
}

// The rank's GEMM operations, one per distinct shape, and the calls of each pass.
void plan_gemms(const StepRun& r, StepPlan& plan, std::vector<std::unique_ptr<Operation>>& ops) {
  const auto& w = r.workload;
  std::map<std::array<std::int64_t, 3>, std::size_t> op_of_shape;
  for (const auto& g : step_gemms(w.model, w.split, w.micro_batch)) {
    const std::array key{g.m, g.n, g.k};
    auto [it, made] = op_of_shape.try_emplace(key, ops.size());
    if (made) {
      matmul::GemmPoint p;
      p.shape = {g.m, g.n, g.k};
      p.dtype = r.gemm_dtype;
      p.rank = r.rank;
      p.point = it->second;
      p.samples = 16;
      p.threads = r.threads;
      ops.push_back(r.gemm->make_operation(p));
    }
    (g.backward ? plan.backward : plan.forward)
        .push_back({it->second, g.count, g.flops(), g.backward});
  }
}

// The buckets' collectives over the group: one operation per collective and bucket size.
void plan_buckets(const StepRun& r, comm::GroupSet& groups, StepPlan& plan,
                  std::vector<std::unique_ptr<Operation>>& ops) {
  const auto buckets = buckets_of(gradient_bytes_per_rank(r.workload), r.workload.bucket_bytes);
  const int ranks = groups.group_size(groups.my_group());
  if (ranks <= 1 || buckets.count == 0) return;
  std::map<std::pair<comm::Collective, std::uint64_t>, std::size_t> op_of;
  auto op_for = [&](comm::Collective c, std::uint64_t bytes) {
    auto [it, made] = op_of.try_emplace({c, bytes}, ops.size());
    if (made) {
      comm::CollectivePoint p;
      p.spec.op = c;
      p.chunk = comm::chunk_elements(c, bytes, p.spec.dtype, ranks);
      p.rank = groups.my_rank();
      p.ranks = ranks;
      ops.push_back(r.comm->make_operation(p, groups.channel()));
    }
    return it->second;
  };
  for (std::uint64_t b = 0; b < buckets.count; ++b) {
    const auto bytes = b + 1 == buckets.count ? buckets.last_bytes : buckets.bytes;
    BucketCalls calls;
    for (auto c : collectives_of(r.workload.sync)) calls.ops.push_back(op_for(c, bytes));
    plan.buckets.push_back(std::move(calls));
  }
}

}  // namespace

StepCase::StepCase(StepRun run, std::shared_ptr<comm::GroupSet> groups, StepLayout layout)
    : run_(std::move(run)), groups_(std::move(groups)), layout_(std::move(layout)) {}

std::string StepCase::name() const {
  const auto& w = run_.workload;
  return fmt::format("{} {} {} nodes", w.preset.empty() ? "custom" : w.preset, sync_name(w.sync),
                     layout_.nodes);
}

std::string StepCase::backend() const {
  return fmt::format("{}+{}", run_.comm->name(), run_.gemm->name());
}

std::vector<Param> StepCase::params() const {
  const auto& w = run_.workload;
  const auto& m = w.model;
  const auto& a = s::kStepCaseAttributes;
  std::vector<Value> v(s::kStepAttributeCount);
  v[s::kStepModel] = w.preset.empty() ? std::string("custom") : w.preset;
  v[s::kStepModelSource] = w.source;
  v[s::kStepModelKind] =
      std::string(m.kind == ModelKind::kResNet50 ? s::kStepResNet50 : s::kStepTransformer);
  v[s::kStepLayers] = std::int64_t{m.layers};
  v[s::kStepHidden] = std::int64_t{m.hidden};
  v[s::kStepFfnHidden] = std::int64_t{m.ffn_hidden};
  v[s::kStepGatedMlp] = std::int64_t{m.gated_mlp ? 1 : 0};
  v[s::kStepHeads] = std::int64_t{m.heads};
  v[s::kStepKvHeads] = std::int64_t{m.kv_heads};
  v[s::kStepVocab] = std::int64_t{m.vocab};
  v[s::kStepSeqLen] = std::int64_t{m.seq_len};
  v[s::kStepImageSize] = std::int64_t{m.image_size};
  v[s::kStepParameters] = static_cast<std::int64_t>(parameter_count(m));
  v[s::kStepGradientBytes] = std::int64_t{w.gradient_bytes};
  v[s::kStepGlobalBatch] = w.global_batch;
  v[s::kStepMicroBatch] = std::int64_t{w.micro_batch};
  v[s::kStepRanksPerNode] = std::int64_t{w.ranks_per_node};
  v[s::kStepTargetNodes] = std::int64_t{w.target_nodes};
  v[s::kStepTensorParallel] = std::int64_t{w.split.tensor_parallel};
  v[s::kStepPipelineParallel] = std::int64_t{w.split.pipeline_parallel};
  v[s::kStepGradientSync] = std::string(sync_name(w.sync));
  v[s::kStepOverlap] = std::int64_t{w.overlap ? 1 : 0};
  v[s::kStepBucketBytes] = static_cast<std::int64_t>(w.bucket_bytes);
  v[s::kStepCheckpointBytes] = static_cast<std::int64_t>(w.checkpoint_bytes);
  v[s::kStepCheckpointInterval] = w.checkpoint_interval_s;
  v[s::kStepMfu] = w.mfu;
  v[s::kStepCommBackend] = std::string(run_.comm->name());
  v[s::kStepGemmLibrary] = fmt::format("{}: {}", run_.gemm->name(), run_.gemm->library());
  v[s::kStepDtype] = std::string(matmul::kDTypeNames.name(run_.gemm_dtype));
  v[s::kStepThreads] = std::int64_t{run_.threads};
  v[s::kStepLayout] = groups_->layout().label;
  const bool fed = run_.data.images != nullptr;
  v[s::kStepDataDir] = fed ? run_.data_dir : std::string();
  v[s::kStepDataWorkers] = std::int64_t{fed ? run_.data.pipeline.workers : 0};
  v[s::kStepDataEngine] = fed ? run_.data.pipeline.engine : std::string();
  v[s::kStepDataCache] = fed ? run_.data_cache : std::string();
  v[s::kStepGemmDevice] = std::string(run_.gemm->on_gpu() ? s::kStepOnGpu : s::kStepOnCpu);
  std::vector<Param> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back({std::string(a[i].name), v[i], std::string(a[i].unit), false});
  return out;
}

CaseMeaning StepCase::meaning() const {
  CaseMeaning m;
  m.stage = s::kStepStage;
  m.x_axis = s::kStepXAxis;
  m.bands = s::kStepBands;
  m.scaling = s::kStepScaling;
  m.subject = fmt::format("{} {}", run_.workload.preset.empty() ? "custom" : run_.workload.preset,
                          sync_name(run_.workload.sync));
  m.series = s::kStepSeriesName;
  m.peer_slow = s::kStepPeerSlow;
  m.peer_late = s::kStepPeerLate;
  m.min_samples = s::kStepMinSamples;
  return m;
}

std::vector<Param> StepCase::point_columns(std::size_t, int) const {
  const auto& c = s::kStepStatsColumns;
  return {column_param(c[s::kStepNodes], std::int64_t{layout_.nodes}, true),
          column_param(c[s::kStepDataParallel], std::int64_t{layout_.data_parallel}, false),
          column_param(c[s::kStepAccumulation], layout_.accumulation, false)};
}

std::vector<Metric> StepCase::metrics(std::size_t, int, double seconds) const {
  const auto& c = s::kStepStatsColumns;
  return {metric(c[s::kStepStepSeconds], seconds),
          metric(c[s::kStepSamplesPerS], double(run_.workload.global_batch) / seconds)};
}

// A counter's median over iterations of its mean over the group's ranks.
std::vector<Metric> StepCase::sample_metrics(std::size_t, int, const SampleView& view) const {
  auto median_of_means = [&](std::size_t counter) {
    const auto& values = (*view.counters)[counter];
    std::vector<double> means;
    for (std::size_t i = 0; i < view.iterations; ++i) {
      double sum = 0;
      for (int r : *view.members) sum += values[i * view.ranks + static_cast<std::size_t>(r)];
      means.push_back(sum / double(view.members->size()));
    }
    return means.empty() ? std::nan("") : median(means);
  };
  const auto& c = s::kStepStatsColumns;
  return {metric(c[s::kStepCompute], median_of_means(s::kStepComputeCounter)),
          metric(c[s::kStepCommExposed], median_of_means(s::kStepCommCounter)),
          metric(c[s::kStepDataExposed],
                 run_.data.images ? median_of_means(s::kStepDataCounter) : std::nan("")),
          metric(c[s::kStepDataBusy],
                 run_.data.images ? median_of_means(s::kStepDataBusyCounter) : std::nan("")),
          metric(c[s::kStepDataCpuShare],
                 run_.data.images ? median_of_means(s::kStepDataCpuShareCounter) : std::nan(""))};
}

std::vector<CounterSpec> StepCase::counters() const {
  std::vector<CounterSpec> out;
  for (const auto& c : s::kStepCounters) out.push_back({&c, 0});
  return out;
}

std::unique_ptr<Operation> StepCase::make_operation(std::size_t) {
  if (!groups_->active()) return nullptr;
  StepPlan plan;
  plan.accumulation = layout_.accumulation;
  plan.overlap = run_.workload.overlap;
  std::vector<std::unique_ptr<Operation>> gemms, comms;
  plan_gemms(run_, plan, gemms);
  plan_buckets(run_, *groups_, plan, comms);
  std::unique_ptr<DataFeed> feed;
  if (run_.data.images) feed = std::make_unique<DataFeed>(run_.data, layout_.accumulation);
  return std::make_unique<StepOperation>(std::move(plan), std::move(gemms), std::move(comms),
                                         std::move(feed));
}

}  // namespace preflight::step
