#include "correctness/gemm_check_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "correctness/gemm_verdict.hpp"
#include "cpu/splitmix.hpp"
#include "preflight/schema/correctness.hpp"

namespace preflight::correctness {

namespace sc = schema::correctness;
namespace sm = schema::matmul;

namespace gemm_check {

constexpr int kTag = 3701;  // the reference result, on the case's communicator
constexpr std::size_t kChunk = std::size_t{1} << 30;  // bytes per message (MPI counts are int)

void post(bool send, unsigned char* data, std::size_t bytes, int peer, MPI_Comm comm,
          std::vector<MPI_Request>& requests) {
  std::size_t offset = 0;
  do {
    const auto n = static_cast<int>(std::min(kChunk, bytes - offset));
    MPI_Request r{};
    if (send)
      MPI_Isend(data + offset, n, MPI_BYTE, peer, kTag, comm, &r);
    else
      MPI_Irecv(data + offset, n, MPI_BYTE, peer, kTag, comm, &r);
    requests.push_back(r);
    offset += static_cast<std::size_t>(n);
  } while (offset < bytes);
}

struct Event {
  double iteration = -1;  // the timed iteration, -1 for the check and warm-up runs
  double element = 0, expected = 0, found = 0, count = 0, source = -1;
};

class GemmCheck final : public Operation {
 public:
  GemmCheck(std::unique_ptr<matmul::GemmOperation> gemm, const GemmCheckSpec& spec,
            std::uint64_t elements, MPI_Comm comm, int rank)
      : gemm_(std::move(gemm)),
        spec_(spec),
        elements_(elements),
        element_bytes_(gemm_->result_element_bytes()),
        comm_(comm),
        rank_(rank),
        hashes_(spec.class_of.size()),
        first_(spec.class_of.size()) {}

  void fill() override { gemm_->fill(); }
  // Untimed, before each warm-up and timed run (the check run's fill() does the same): C to
  // all-ones bytes, so that a GEMM that stops writing part of C fails instead of keeping the
  // previous run's values.
  void before_iteration() override { gemm_->poison_result(); }
  void run() override {
    gemm_->launch();
    ++runs_;
    last_wrong_ = 0;
    last_event_ = -1;
    if (every_ > 0 && runs_ % static_cast<std::uint64_t>(every_) == 0) plant();
    const std::uint64_t h = gemm_->result_hash();
    MPI_Allgather(&h, 1, MPI_UINT64_T, hashes_.data(), 1, MPI_UINT64_T, comm_);
    if (runs_ == 1) {
      const std::uint64_t reference = confirm(h);
      MPI_Allgather(&reference, 1, MPI_UINT64_T, first_.data(), 1, MPI_UINT64_T, comm_);
    }
    const auto verdicts = judge(spec_.class_of, hashes_, first_);
    if (std::any_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.wrong; }))
      details(verdicts);
    run1_c_.clear();
    run1_c_.shrink_to_fit();
  }
  std::uint64_t count_wrong() override { return gemm_->count_wrong(); }
  void corrupt_result() override { gemm_->corrupt_result(); }
  void plant_corruption(int every) override { every_ = every; }
  std::uint64_t wrong_in_runs() override { return wrong_total_; }
  std::vector<double> iteration_counters() override {
    if (last_event_ >= 0) events_[static_cast<std::size_t>(last_event_)].iteration = timed_;
    last_event_ = -1;
    ++timed_;
    return {static_cast<double>(last_wrong_)};
  }
  std::vector<std::vector<double>> series() override {
    std::vector<std::vector<double>> out(6);
    for (const Event& e : events_) {
      out[0].push_back(e.iteration);
      out[1].push_back(e.element);
      out[2].push_back(e.expected);
      out[3].push_back(e.found);
      out[4].push_back(e.count);
      out[5].push_back(e.source);
    }
    return out;
  }

 private:
  // Test-only: one mantissa bit (of the low 7, a mantissa bit in every output type here) of a
  // pseudo-random element, after the GEMM and before the hash.
  void plant() {
    gemm_->wait();
    const std::uint64_t x =
        kernels::splitmix(runs_ * 0x51ED27ULL + static_cast<std::uint64_t>(rank_));
    gemm_->flip_result_bit(x % elements_, static_cast<int>((x >> 32) % 7));
  }
  // The check run (untimed, the point's first): the reference of this rank's later results is
  // not its first result but the first one a repetition confirms (confirmed_reference: run 1
  // against run 2, and a third where they differ), so that a fault in run 1 is counted once, on
  // run 1, rather than in every later run with expected and found swapped. Returns the
  // reference's hash; first_c_ holds its bytes, run1_c_ run 1's where they differ. A repetition
  // that differs from the reference is counted wrong here (source: this rank, or -1 where no
  // two of the three agree and run 1 stays the reference).
  std::uint64_t confirm(std::uint64_t h1) {
    std::vector<std::uint64_t> seen = {h1};
    first_c_ = gemm_->result_bytes();
    std::vector<unsigned char> second;
    int reference = -1;
    while (reference < 0 && seen.size() < 3) {
      if (seen.size() == 2) second = gemm_->result_bytes();  // run 2 differs from run 1
      gemm_->poison_result();
      gemm_->launch();
      seen.push_back(gemm_->result_hash());
      reference = confirmed_reference(seen);
    }
    if (seen.size() == 2) return h1;  // run 2 repeats run 1: the usual case, no other copy
    std::vector<unsigned char> third = gemm_->result_bytes();
    if (reference == 1) {  // run 1 was the faulty one: runs 2 and 3 agree
      run1_c_ = std::move(first_c_);
      first_c_ = std::move(third);
      return seen[1];
    }
    // Run 1 is the reference (confirmed by run 3, or no two agree): repetitions that differ
    // from it are wrong.
    const int source = reference == 0 ? rank_ : -1;
    note(second.data(), first_c_.data(), source);
    if (seen[2] != h1) note(third.data(), first_c_.data(), source);
    return h1;
  }
  // One wrong result against `reference`: counted, and an event while fewer than events_kept.
  void note(const unsigned char* own, const unsigned char* reference, int source) {
    const Difference d = compare_results(own, reference, elements_, element_bytes_);
    if (d.count == 0) return;
    last_wrong_ += d.count;
    wrong_total_ += d.count;
    if (events_.size() >= static_cast<std::size_t>(spec_.events_kept)) return;
    const std::size_t at = static_cast<std::size_t>(d.first) * element_bytes_;
    events_.push_back({-1, static_cast<double>(d.first), gemm_->result_value(reference + at),
                       gemm_->result_value(own + at), static_cast<double>(d.count),
                       static_cast<double>(source)});
    last_event_ = static_cast<int>(events_.size()) - 1;
  }
  // The rare path: results move point to point, from each reference to the ranks that need it.
  void details(const std::vector<Verdict>& verdicts) {
    const Verdict& me = verdicts[static_cast<std::size_t>(rank_)];
    bool sends = false;
    for (std::size_t r = 0; r < verdicts.size(); ++r)
      sends = sends ||
              (verdicts[r].wrong && verdicts[r].reference == rank_ && static_cast<int>(r) != rank_);
    if (!me.wrong && !sends) return;
    // The check run's own result is run 1's, which the repetitions may have overwritten.
    std::vector<unsigned char> own = runs_ != 1        ? gemm_->result_bytes()
                                     : run1_c_.empty() ? first_c_
                                                       : run1_c_,
                               fetched;
    std::vector<MPI_Request> requests;
    if (me.wrong && me.reference != rank_) {
      fetched.resize(own.size());
      post(false, fetched.data(), fetched.size(), me.reference, comm_, requests);
    }
    for (std::size_t r = 0; r < verdicts.size(); ++r)
      if (verdicts[r].wrong && verdicts[r].reference == rank_ && static_cast<int>(r) != rank_)
        post(true, own.data(), own.size(), static_cast<int>(r), comm_, requests);
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    if (!me.wrong) return;
    const unsigned char* reference = me.reference == rank_ ? first_c_.data() : fetched.data();
    note(own.data(), reference, me.source);
  }

  std::unique_ptr<matmul::GemmOperation> gemm_;
  const GemmCheckSpec& spec_;
  std::uint64_t elements_;
  std::size_t element_bytes_;
  MPI_Comm comm_;
  int rank_;
  std::vector<std::uint64_t> hashes_, first_;
  std::vector<unsigned char> first_c_;  // this rank's confirmed result of the point (confirm)
  std::vector<unsigned char> run1_c_;   // during the check run: run 1's, where not first_c_
  std::uint64_t runs_ = 0, last_wrong_ = 0, wrong_total_ = 0;
  int every_ = 0, last_event_ = -1;
  double timed_ = 0;
  std::vector<Event> events_;
};

}  // namespace gemm_check

GemmCheckCase::GemmCheckCase(GemmCheckSpec spec, std::shared_ptr<matmul::GemmBackend> backend,
                             std::shared_ptr<MPI_Comm> comm, int rank)
    : spec_(std::move(spec)),
      backend_(std::move(backend)),
      comm_(std::move(comm)),
      rank_(rank),
      group_of_rank_(spec_.class_of.size(), 0) {}

std::string GemmCheckCase::name() const {
  return fmt::format("gemm determinism {} {}", backend_->name(),
                     matmul::kDTypeNames.name(spec_.dtype));
}

const schema::FamilySchema& GemmCheckCase::declaration() const {
  return sc::kGemmDeclaration;
}

std::vector<Param> GemmCheckCase::params() const {
  return {attr(sc::kCheck, sc::kCheckGemm),
          attr(sc::kEventsKept, std::int64_t{spec_.events_kept}),
          attr(sc::kSeed, spec_.seed),
          attr(sc::kCompareClasses, spec_.compare_classes),
          attr(sc::kDeterminism, spec_.determinism),
          attr(sm::kDtype, matmul::kDTypeNames.name(spec_.dtype)),
          attr(sm::kThreads, spec_.threads),
          attr(sm::kLibrary, spec_.library),
          attr(sm::kRanks, static_cast<std::int64_t>(group_of_rank_.size()))};
}

std::vector<Param> GemmCheckCase::point_columns(std::size_t point, int /*group*/) const {
  const matmul::Shape& s = spec_.shapes[point];
  return {column_param(sm::kGemmMColumn, s.m, true), column_param(sm::kGemmNColumn, s.n, true),
          column_param(sm::kGemmKColumn, s.k, true),
          column_param(sm::kFlopColumn, static_cast<std::int64_t>(s.flop()), false)};
}

std::vector<Metric> GemmCheckCase::metrics(std::size_t point, int /*group*/, double seconds) const {
  return {metric(sc::kCheckedTflopsColumn, spec_.shapes[point].flop() / seconds / 1e12)};
}

std::vector<Metric> GemmCheckCase::sample_metrics(std::size_t /*point*/, int /*group*/,
                                                  const SampleView& view) const {
  std::int64_t checked = 0, wrong = 0;
  if (view.counters != nullptr && !view.counters->empty()) {
    const auto& counter = view.counters->front();
    for (std::size_t i = 0; i < view.iterations; ++i)
      for (int r : *view.members) {
        const double x = counter[i * view.ranks + static_cast<std::size_t>(r)];
        if (std::isnan(x)) continue;
        ++checked;
        if (x > 0) ++wrong;
      }
  }
  return {metric(sc::kCheckedResultsColumn, static_cast<double>(checked)),
          metric(sc::kWrongResultsColumn, static_cast<double>(wrong))};
}

std::vector<CounterSpec> GemmCheckCase::counters() const {
  return {{&sc::kWrongElementsCounter}};
}

std::vector<CounterSpec> GemmCheckCase::series() const {
  std::vector<CounterSpec> out;
  for (const auto& c : schema::kCorrectnessSeries) out.push_back({&c});
  return out;
}

std::unique_ptr<Operation> GemmCheckCase::make_operation(std::size_t point) {
  const matmul::Shape& s = spec_.shapes[point];
  const auto elements = static_cast<std::uint64_t>(s.m * s.n);
  matmul::GemmPoint p;
  p.dtype = spec_.dtype;
  p.shape = s;
  p.rank = rank_;
  p.point = point;
  // The CPU reference for small shapes: every element; else 256 sampled ones, as matmul.
  p.samples = 256;
  p.every_element = elements <= 65536;
  p.threads = spec_.threads;
  p.shared_seed = spec_.seed;
  p.deterministic = true;
  return std::make_unique<gemm_check::GemmCheck>(backend_->make_operation(p), spec_, elements,
                                                 *comm_, rank_);
}

}  // namespace preflight::correctness
