#include "step/step_case.hpp"

#include <fmt/format.h>

#include <map>

#include "preflight/common/stats.hpp"
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
  namespace a = s::step;
  const bool fed = run_.data.images != nullptr;
  return {
      attr(a::kModelPreset, w.preset.empty() ? std::string("custom") : w.preset),
      attr(a::kModelSource, w.source),
      attr(a::kModelKind,
           std::string(m.kind == ModelKind::kResNet50 ? s::kStepResNet50 : s::kStepTransformer)),
      attr(a::kLayers, std::int64_t{m.layers}),
      attr(a::kHidden, std::int64_t{m.hidden}),
      attr(a::kFfnHidden, std::int64_t{m.ffn_hidden}),
      attr(a::kGatedMlp, std::int64_t{m.gated_mlp ? 1 : 0}),
      attr(a::kHeads, std::int64_t{m.heads}),
      attr(a::kKvHeads, std::int64_t{m.kv_heads}),
      attr(a::kVocab, std::int64_t{m.vocab}),
      attr(a::kSeqLen, std::int64_t{m.seq_len}),
      attr(a::kImageSize, std::int64_t{m.image_size}),
      attr(a::kParameters, static_cast<std::int64_t>(parameter_count(m))),
      attr(a::kGradientBytes, std::int64_t{w.gradient_bytes}),
      attr(a::kGlobalBatch, w.global_batch),
      attr(a::kMicroBatch, std::int64_t{w.micro_batch}),
      attr(a::kWorkloadRanksPerNode, std::int64_t{w.ranks_per_node}),
      attr(a::kTargetNodes, std::int64_t{w.target_nodes}),
      attr(a::kTensorParallel, std::int64_t{w.split.tensor_parallel}),
      attr(a::kPipelineParallel, std::int64_t{w.split.pipeline_parallel}),
      attr(a::kGradientSync, std::string(sync_name(w.sync))),
      attr(a::kOverlap, std::int64_t{w.overlap ? 1 : 0}),
      attr(a::kBucketBytes, static_cast<std::int64_t>(w.bucket_bytes)),
      attr(a::kCheckpointBytes, static_cast<std::int64_t>(w.checkpoint_bytes)),
      attr(a::kCheckpointIntervalS, w.checkpoint_interval_s),
      attr(a::kMfu, w.mfu),
      attr(a::kCommBackend, std::string(run_.comm->name())),
      attr(a::kGemmLibrary, fmt::format("{}: {}", run_.gemm->name(), run_.gemm->library())),
      attr(a::kDtype, std::string(matmul::kDTypeNames.name(run_.gemm_dtype))),
      attr(a::kThreads, std::int64_t{run_.threads}),
      attr(a::kLayout, groups_->layout().label),
      attr(a::kDataDir, fed ? run_.data_dir : std::string()),
      attr(a::kDataWorkers, std::int64_t{fed ? run_.data.pipeline.workers : 0}),
      attr(a::kDataEngine, fed ? run_.data.pipeline.engine : std::string()),
      attr(a::kDataCache, fed ? run_.data_cache : std::string()),
      attr(a::kGemmDevice, std::string(run_.gemm->on_gpu() ? s::kStepOnGpu : s::kStepOnCpu)),
  };
}

schema::OwnMeaning StepCase::own_meaning() const {
  return {.subject =
              fmt::format("{} {}", run_.workload.preset.empty() ? "custom" : run_.workload.preset,
                          sync_name(run_.workload.sync))};
}

std::vector<Param> StepCase::point_columns(std::size_t, int) const {
  return {
      column_param(schema::step::kNodesColumn, std::int64_t{layout_.nodes}, true),
      column_param(schema::step::kDataParallelColumn, std::int64_t{layout_.data_parallel}, false),
      column_param(schema::step::kAccumulationColumn, layout_.accumulation, false)};
}

std::vector<Metric> StepCase::metrics(std::size_t, int, double seconds) const {
  return {metric(schema::step::kStepSColumn, seconds),
          metric(schema::step::kSamplesPerSColumn, double(run_.workload.global_batch) / seconds)};
}

// A counter's median over iterations of its mean over the group's ranks.
std::vector<Metric> StepCase::sample_metrics(std::size_t, int, const SampleView& view) const {
  auto median_of_means = [&](const s::Column& counter) {
    const auto& values = (*view.counters)[s::index_in(s::kStepCounters, counter)];
    std::vector<double> means;
    for (std::size_t i = 0; i < view.iterations; ++i) {
      double sum = 0;
      for (int r : *view.members) sum += values[i * view.ranks + static_cast<std::size_t>(r)];
      means.push_back(sum / double(view.members->size()));
    }
    return means.empty() ? std::nan("") : median(means);
  };
  return {metric(schema::step::kComputeSColumn, median_of_means(s::step::kComputeSCounter)),
          metric(schema::step::kCommExposedSColumn, median_of_means(s::step::kCommExposedSCounter)),
          metric(schema::step::kDataExposedSColumn,
                 run_.data.images ? median_of_means(s::step::kDataExposedSCounter) : std::nan("")),
          metric(schema::step::kDataBusySColumn,
                 run_.data.images ? median_of_means(s::step::kDataBusySCounter) : std::nan("")),
          metric(schema::step::kDataCpuShareColumn,
                 run_.data.images ? median_of_means(s::step::kDataCpuShareCounter) : std::nan(""))};
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
