#include "plugins/step_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/case_view.hpp"
#include "plugins/alpha_beta.hpp"
#include "preflight/common/stats.hpp"
#include "preflight/schema/checkpoint.hpp"
#include "preflight/schema/comm.hpp"
#include "preflight/schema/dataloader.hpp"
#include "preflight/schema/family_names.hpp"
#include "preflight/schema/layout.hpp"
#include "preflight/schema/matmul.hpp"
#include "preflight/schema/step.hpp"

namespace preflight::report::plugins {
namespace {

namespace s = schema;
namespace sp = step_projection;
// The shortest GEMM priced by its span on CPUs (see matmul_rates).
constexpr double kSpanAtLeastS = 1e-3;

namespace st = schema::step;

std::string text(const CaseView& v, const schema::Attr<std::string>& attr) {
  return attribute_text(v.get(attr));
}
// A whole-number attribute of the workload; 0 where the case lacks it.
int whole(const CaseView& v, const schema::Attr<std::int64_t>& attr) {
  return static_cast<int>(v.get(attr).value_or(0));
}

step::Workload workload_of(const CaseView& v) {
  step::Workload w;
  w.preset = text(v, st::kModelPreset);
  w.source = text(v, st::kModelSource);
  auto& m = w.model;
  m.kind = text(v, st::kModelKind) == s::kStepResNet50 ? step::ModelKind::kResNet50
                                                       : step::ModelKind::kTransformer;
  m.layers = whole(v, st::kLayers);
  m.hidden = whole(v, st::kHidden);
  m.ffn_hidden = whole(v, st::kFfnHidden);
  m.gated_mlp = whole(v, st::kGatedMlp) == 1;
  m.heads = whole(v, st::kHeads);
  m.kv_heads = whole(v, st::kKvHeads);
  m.vocab = whole(v, st::kVocab);
  m.seq_len = whole(v, st::kSeqLen);
  m.image_size = whole(v, st::kImageSize);
  w.split = {whole(v, st::kTensorParallel), whole(v, st::kPipelineParallel)};
  w.gradient_bytes = whole(v, st::kGradientBytes);
  w.global_batch = v.get(st::kGlobalBatch).value_or(0);
  w.micro_batch = whole(v, st::kMicroBatch);
  w.ranks_per_node = whole(v, st::kWorkloadRanksPerNode);
  w.target_nodes = whole(v, st::kTargetNodes);
  w.sync = text(v, st::kGradientSync) == s::kStepAllReduce
               ? step::GradientSync::kAllReduce
               : step::GradientSync::kReduceScatterAllGather;
  w.overlap = whole(v, st::kOverlap) == 1;
  w.bucket_bytes = static_cast<std::uint64_t>(v.get(st::kBucketBytes).value_or(0));
  w.checkpoint_bytes = static_cast<std::uint64_t>(v.get(st::kCheckpointBytes).value_or(0));
  w.checkpoint_interval_s = or_nan(v.get(st::kCheckpointIntervalS));
  w.mfu = or_nan(v.get(st::kMfu));
  return w;
}

// The backend name before the library's description ("openblas: OpenBLAS 0.3.21 ...").
std::string gemm_backend_of(const CaseView& v) {
  const auto lib = text(v, st::kGemmLibrary);
  return lib.substr(0, lib.find(':'));
}

// The matmul cases of the step's backend and GEMM element type (the step's dtype attribute).
std::vector<sp::RatePoint> matmul_rates(const RunData& run, const std::string& backend,
                                        const std::string& dtype, bool on_cpu) {
  std::vector<sp::RatePoint> out;
  for (const auto& c : run.cases) {
    const CaseView v(c);
    if (c.family != schema::kMatmulFamily || c.status != schema::case_status::kOk ||
        c.backend != backend || text(v, s::matmul::kDtype) != dtype)
      continue;
    auto at = [&](const s::Column& column, std::size_t p) {
      return v.number(std::string(column.name), v.row(p));
    };
    // The step issues its GEMMs back to back, as matmul's back-to-back blocks do (no barrier
    // between them, each rank's device never idle): that rate where it was measured. On CPUs
    // the ranks of a host may share cores and take turns, which each rank's own time hides:
    // there the rate over the iteration's span, where the file has it and the GEMM is long
    // enough that the barrier's release spread is not most of the span (on 4 ranks over 2
    // cores it released the ranks 1.5 to 10 ms apart around GEMMs of 5 to 900 us).
    auto rate = [&](std::size_t p) -> std::pair<double, const char*> {
      const double own_s = at(s::matmul::kFlopColumn, p) / (at(s::matmul::kTflopsColumn, p) * 1e12);
      const double span =
          on_cpu && own_s >= kSpanAtLeastS ? at(s::matmul::kSpanTflopsColumn, p) : kNaN;
      if (!std::isnan(span)) return {span * 1e12, sp::kSpanRate.data()};
      const double batched = at(s::matmul::kBatchedTflopsColumn, p);
      if (!std::isnan(batched)) return {batched * 1e12, " (back-to-back)"};
      return {at(s::matmul::kTflopsColumn, p) * 1e12, ""};
    };
    for (std::size_t p = 0; p < v.points(); ++p)
      out.push_back({at(s::matmul::kFlopColumn, p), rate(p).first,
                     source_of(run, c) + rate(p).second,
                     std::int64_t(at(s::matmul::kGemmMColumn, p)),
                     std::int64_t(at(s::matmul::kGemmNColumn, p)),
                     std::int64_t(at(s::matmul::kGemmKColumn, p))});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.flops < b.flops; });
  return out;
}

bool gradient_like(const CaseView& v, const std::string& collective) {
  return text(v, s::comm::kCollective) == collective && text(v, s::comm::kDtype) == "float32" &&
         text(v, s::comm::kRedop) == "sum" && text(v, s::comm::kPlacement) == "out-of-place";
}

// Each rank count once, from a case whose group spans whole nodes (the step's groups do);
// ladder cases first, as the step runs on whole nodes.
void add_measured(const RunData& run, const CaseData& c, int ranks_per_node,
                  sp::CollectiveFigures& f) {
  const CaseView v(c);
  const double ranks = v.group_ranks(0), nodes = static_cast<double>(c.meaning.span_nodes);
  if (!(ranks == nodes * ranks_per_node)) return;
  for (const auto& m : f.measured)
    if (m.ranks == ranks) return;
  sp::MeasuredScale m{ranks, nodes, {}, {}, source_of(run, c)};
  for (std::size_t p = 0; p < v.points(); ++p) {
    m.sizes.push_back(v.size_at(p));
    m.seconds.push_back(v.group_time(p));
  }
  f.measured.push_back(std::move(m));
}

sp::CollectiveFigures collective_figures(const RunData& run, const std::string& label,
                                         const std::string& collective, int ranks_per_node) {
  sp::CollectiveFigures f{collective, {}, -1, -1, ""};
  std::string subject;
  for (const bool ladder : {true, false})
    for (const auto& c : run.cases) {
      const CaseView v(c);
      if (c.family != schema::kCommFamily || c.status != schema::case_status::kOk ||
          !gradient_like(v, collective) || (text(v, s::comm::kTopology) == "ladder") != ladder)
        continue;
      add_measured(run, c, ranks_per_node, f);
      if (subject.empty()) subject = v.subject();
    }
  for (const auto& fit : alpha_beta_fits(run, label))
    if (fit.subject == subject && fit.caveat.empty() == true) {
      f.alpha_s = fit.alpha_s;
      f.beta_s_per_byte = fit.beta_s_per_byte;
      f.fit_source = fmt::format("the fit of {} in {}, {} points", subject, run.path, fit.points);
    } else if (fit.subject == subject && f.alpha_s < 0) {
      f.alpha_s = fit.alpha_s;
      f.beta_s_per_byte = fit.beta_s_per_byte;
      f.fit_source = fmt::format("the fit of {} in {} (caveat: {})", subject, run.path, fit.caveat);
    }
  return f;
}

// The loader's own rate: a point where it set the pace, the loader alone (no emulated
// compute) or below its AU target; images/s per rank.
double loader_rate(const CaseView& v, std::size_t p) {
  auto at = [&](const s::Column& c) { return v.number(std::string(c.name), v.row(p)); };
  const bool alone = !(or_nan(v.get(s::dataloader::kComputePerBatchS)) > 0);
  // The emulated compute set the pace.
  if (!alone && at(s::dataloader::kAuMetColumn) == 1) return -1;
  return at(s::dataloader::kImagesPerSColumn) / or_nan(v.get(s::dataloader::kRanks));
}

// The step's feed as the dataloader measured it: the same images, engine, cache state, crop
// and workers per rank. Without a feed (an image model priced from a loader run apart), the
// fastest of the loader's own rates.
sp::Sourced data_rate(const RunData& run, const CaseView& step) {
  const std::string dir = text(step, st::kDataDir);
  const bool fed = !dir.empty();
  sp::Sourced best{-1, ""};
  for (const auto& c : run.cases) {
    const CaseView v(c);
    if (c.family != schema::kDataloaderFamily || c.status != schema::case_status::kOk) continue;
    if (fed && (text(v, s::dataloader::kDataDir) != dir ||
                text(v, s::dataloader::kEngine) != text(step, st::kDataEngine) ||
                text(v, s::dataloader::kCacheState) != text(step, st::kDataCache) ||
                or_nan(v.get(s::dataloader::kCrop)) != or_nan(step.get(st::kImageSize))))
      continue;
    const std::string workers(s::dataloader::kWorkersColumn.name);
    for (std::size_t p = 0; p < v.points(); ++p) {
      const double w = v.number(workers, v.row(p));
      if (fed && w != or_nan(step.get(st::kDataWorkers))) continue;
      const double per_rank = loader_rate(v, p);
      if (per_rank > best.value)
        best = {per_rank, fmt::format("{} point {}, {:g} workers per rank, {:.4g} images/s over "
                                      "{} ranks",
                                      source_of(run, c), p, w,
                                      per_rank * or_nan(v.get(s::dataloader::kRanks)),
                                      attribute_text(v.get(s::dataloader::kRanks)))};
    }
  }
  return best;
}

// The fastest durable save per node of the run's checkpoint cases.
sp::Sourced checkpoint_rate(const RunData& run) {
  sp::Sourced best{-1, ""};
  const std::string bw(s::checkpoint::kSaveBwColumn.name);
  for (const auto& c : run.cases) {
    const CaseView v(c);
    if (c.family != schema::kCheckpointFamily || c.status != schema::case_status::kOk ||
        v.get(s::checkpoint::kPhase) != s::kCheckpointSave || v.get(s::checkpoint::kDurable) != 1)
      continue;
    for (std::size_t p = 0; p < v.points(); ++p) {
      const double per_node = v.number(bw, v.row(p)) * 1e9 / or_nan(v.get(s::checkpoint::kNodes));
      if (per_node > best.value)
        best = {per_node,
                fmt::format("{} point {} (durable save_bw / nodes)", source_of(run, c), p)};
    }
  }
  return best;
}

std::string workload_line(const step::Workload& w) {
  return fmt::format(
      "workload: {} ({}); {} parameters; global batch {}, micro-batch {}; {} ranks per node, "
      "target {} nodes; tensor {} x pipeline {}; gradient {} B an element, {}, overlap {}, "
      "buckets of {} B; mfu {:g}; checkpoint {} B per node every {:g} s",
      w.preset.empty() ? "custom" : w.preset, w.source, step::parameter_count(w.model),
      w.global_batch, w.micro_batch, w.ranks_per_node, w.target_nodes, w.split.tensor_parallel,
      w.split.pipeline_parallel, w.gradient_bytes,
      w.sync == step::GradientSync::kAllReduce ? "all-reduce" : "reduce-scatter + all-gather",
      w.overlap ? "on" : "off", w.bucket_bytes, w.mfu, w.checkpoint_bytes, w.checkpoint_interval_s);
}

}  // namespace

std::string source_of(const RunData& run, const CaseData& c) {
  return fmt::format("case {} ({}) in {}", c.group_name, c.name, run.path);
}

std::string workload_key(const CaseData& step) {
  // Every attribute the step declares but its layout (the node count: one workload runs at
  // several), by the declaration table's names, so that an attribute added to the table joins
  // the key; each as the file has it.
  std::string key;
  for (const auto& item : s::kStepCaseAttributes) {
    if (item.name == st::kLayout.name) continue;
    const auto it = step.params.find(std::string(item.name));
    key += (it == step.params.end() ? std::string() : it->second) + '\x1f';
  }
  return key;
}

std::optional<StepInputs> step_inputs(const RunData& run, const std::string& label) {
  const CaseData* step = nullptr;
  for (const auto& c : run.cases)
    if (c.family == schema::kStepFamily && c.status == schema::case_status::kOk && step == nullptr)
      step = &c;
  if (step == nullptr) return std::nullopt;
  const CaseView v(*step);
  StepInputs out;
  out.workload = workload_key(*step);
  auto& in = out.inputs;
  in.workload = workload_of(v);
  out.assumptions.push_back(workload_line(in.workload) + " (from " + source_of(run, *step) + ")");
  // MPI's collectives block the rank that calls them (the step's MPI backend), so nothing
  // overlaps: the projection of this run's step must not hide what the step could not.
  if (in.workload.overlap && text(v, st::kCommBackend) == "mpi") {
    in.workload.overlap = false;
    out.assumptions.push_back(
        "overlap: off in the projection: the step's comm backend, mpi, blocks in each "
        "collective, so no bucket ran beside the GEMMs (nccl overlaps)");
  }
  // Files written before the step recorded its GEMMs' type ran them in float32.
  const auto dtype = text(v, st::kDtype).empty() ? std::string("float32") : text(v, st::kDtype);
  in.rates =
      matmul_rates(run, gemm_backend_of(v), dtype, text(v, st::kGemmDevice) == s::kStepOnCpu);
  if (in.rates.empty())
    out.problem = fmt::format("no {} matmul case on {} in {}: add a matmul benchmark", dtype,
                              gemm_backend_of(v), run.path);
  const bool sharded = in.workload.sync != step::GradientSync::kAllReduce;
  for (const auto* name : sharded ? std::vector<const char*>{"reducescatter", "allgather"}
                                  : std::vector<const char*>{"allreduce"})
    in.collectives.push_back(collective_figures(run, label, name, in.workload.ranks_per_node));
  if (in.workload.model.kind == step::ModelKind::kResNet50) {
    in.data_samples_per_s = data_rate(run, v);
    in.data_shares_compute_cpus = text(v, st::kGemmDevice) == s::kStepOnCpu;
    if (in.data_samples_per_s.value < 0 && !text(v, st::kDataDir).empty())
      out.assumptions.push_back(fmt::format(
          "data: no dataloader case measured the step's feed ({}, {} workers per rank, {}, "
          "cache {}, crop {}) with the loader setting the pace: add one with compute_per_batch: 0",
          text(v, st::kDataDir), attribute_text(v.get(st::kDataWorkers)), text(v, st::kDataEngine),
          text(v, st::kDataCache), attribute_text(v.get(st::kImageSize))));
  }
  in.checkpoint_bytes_per_s = checkpoint_rate(run);
  out.assumptions.push_back(
      "compute counts the GEMMs only (attention's softmax, norms and the optimizer are in mfu); "
      "a transformer's data (token ids) is not priced; the dataloader prices image samples");
  return out;
}

}  // namespace preflight::report::plugins
