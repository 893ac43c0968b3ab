// The GEMM determinism check's parts without MPI but one (C poisoned before each run)
// (bench/correctness/gemm_verdict.hpp, kernels/cpu/result_hash.hpp): the hash of a result, the
// verdict of a class (majority, tie, class of one), the comparison of two results, and the classes'
// description.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "correctness/gemm_check_case.hpp"
#include "correctness/gemm_verdict.hpp"
#include "cpu/result_hash.hpp"
#include "matmul/verify.hpp"

namespace preflight::correctness {
namespace {

using kernels::hash_bytes;

std::vector<float> some_result(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(matmul::input_value(7, i));
  return v;
}

TEST(ResultHash, EqualBytesEqualHashAnyFlippedBitChangesIt) {
  // Lengths with and without a partial last word, shorter and longer than the unrolled loop.
  for (std::size_t n : {1UL, 3UL, 7UL, 64UL, 1001UL}) {
    const auto a = some_result(n), b = some_result(n);
    const std::size_t bytes = n * sizeof(float);
    ASSERT_EQ(hash_bytes(a.data(), bytes), hash_bytes(b.data(), bytes)) << n;
    for (std::size_t bit = 0; bit < bytes * 8; bit += (bytes * 8) / 37 + 1) {
      auto c = a;
      auto* p = reinterpret_cast<unsigned char*>(c.data());
      p[bit / 8] = static_cast<unsigned char>(p[bit / 8] ^ (1U << (bit % 8)));
      EXPECT_NE(hash_bytes(a.data(), bytes), hash_bytes(c.data(), bytes)) << n << " bit " << bit;
    }
  }
  // Two equal words swapped, and a trailing zero byte, change it too.
  const std::vector<std::uint64_t> w = {1, 2, 3, 4}, s = {2, 1, 3, 4};
  EXPECT_NE(hash_bytes(w.data(), 32), hash_bytes(s.data(), 32));
  const unsigned char z[2] = {5, 0};
  EXPECT_NE(hash_bytes(z, 1), hash_bytes(z, 2));
}

TEST(ResultHash, SumIsTheSameInAnyOrderOfPartials) {
  // The GPU adds block partials in any order: the sum of the words' mixes split anywhere is the
  // whole one's.
  const auto a = some_result(1000);
  const auto* p = reinterpret_cast<const unsigned char*>(a.data());
  std::uint64_t parts = 0;
  for (std::size_t w = 0; w < 500; ++w) {
    std::uint64_t word = 0;
    std::memcpy(&word, p + 8 * w, 8);
    parts += kernels::hash_word(word, w);
  }
  EXPECT_EQ(kernels::hash_finish(parts, 4000), hash_bytes(a.data(), 4000));
}

TEST(GemmVerdict, MajorityNamesTheDissenterAndItsReference) {
  const std::vector<int> cls = {0, 0, 0, 0};
  const std::vector<std::uint64_t> first = {5, 5, 5, 5}, now = {5, 5, 9, 5};
  const auto v = judge(cls, now, first);
  for (int r : {0, 1, 3}) EXPECT_FALSE(v[static_cast<std::size_t>(r)].wrong) << r;
  EXPECT_TRUE(v[2].wrong);
  EXPECT_EQ(v[2].reference, 0);
  EXPECT_EQ(v[2].source, 0);
  // The majority's lowest rank, also when rank 0 dissents.
  const auto w = judge(cls, {9, 5, 5, 5}, first);
  EXPECT_TRUE(w[0].wrong);
  EXPECT_EQ(w[0].reference, 1);
  EXPECT_FALSE(w[1].wrong);
}

TEST(GemmVerdict, ClassOfOneComparesWithItsOwnFirstResult) {
  const std::vector<int> cls = {0, 1};  // two models: each alone
  const auto same = judge(cls, {5, 7}, {5, 7});
  EXPECT_FALSE(same[0].wrong);
  EXPECT_FALSE(same[1].wrong);
  const auto changed = judge(cls, {5, 8}, {5, 7});
  EXPECT_FALSE(changed[0].wrong);
  EXPECT_TRUE(changed[1].wrong);
  EXPECT_EQ(changed[1].reference, 1);
  EXPECT_EQ(changed[1].source, 1);
}

// A class of one's reference is the first result a repetition confirms, not run 1 blindly: a
// faulty run 1 (hash 9 among 5s) is the one counted wrong, once, and the later 5s are right.
TEST(GemmVerdict, ClassOfOneReferenceIsConfirmedByRepetition) {
  EXPECT_EQ(confirmed_reference({5, 5}), 0);      // run 2 repeats run 1
  EXPECT_EQ(confirmed_reference({9, 5}), -1);     // differ: a third run decides
  EXPECT_EQ(confirmed_reference({9, 5, 5}), 1);   // run 1 was the faulty one
  EXPECT_EQ(confirmed_reference({5, 9, 5}), 0);   // run 2 was
  EXPECT_EQ(confirmed_reference({5, 9, 7}), -1);  // no two agree
  const std::vector<int> cls = {0};
  const std::uint64_t reference = 5;  // confirmed from {9, 5, 5}
  const auto run1 = judge(cls, {9}, {reference});
  EXPECT_TRUE(run1[0].wrong);
  EXPECT_EQ(run1[0].reference, 0);
  for (int later = 0; later < 3; ++later) EXPECT_FALSE(judge(cls, {5}, {reference})[0].wrong);
}

TEST(GemmVerdict, TieFallsBackToRepetitionThenNoMajority) {
  const std::vector<int> cls = {0, 0};
  // Rank 1 changed since its first result, rank 0 did not: rank 1 alone is wrong.
  const auto a = judge(cls, {5, 9}, {5, 5});
  EXPECT_FALSE(a[0].wrong);
  EXPECT_TRUE(a[1].wrong);
  EXPECT_EQ(a[1].reference, 1);
  EXPECT_EQ(a[1].source, 1);
  // Both steady and different: nobody can tell; both wrong, source -1, compared with the other.
  const auto b = judge(cls, {5, 9}, {5, 9});
  EXPECT_TRUE(b[0].wrong);
  EXPECT_TRUE(b[1].wrong);
  EXPECT_EQ(b[0].source, -1);
  EXPECT_EQ(b[1].source, -1);
  EXPECT_EQ(b[0].reference, 1);
  EXPECT_EQ(b[1].reference, 0);
  // 2 against 2 in a class of four: no strict majority either.
  const auto c = judge({0, 0, 0, 0}, {5, 5, 9, 9}, {5, 5, 9, 9});
  for (const auto& x : c) EXPECT_TRUE(x.wrong);
  // Classes are judged apart: a second class's split does not touch the first.
  const auto d = judge({0, 0, 0, 1, 1}, {5, 5, 5, 7, 8}, {5, 5, 5, 7, 8});
  for (int r : {0, 1, 2}) EXPECT_FALSE(d[static_cast<std::size_t>(r)].wrong);
  EXPECT_TRUE(d[3].wrong);
  EXPECT_EQ(d[3].reference, 4);
}

TEST(GemmVerdict, CompareFindsFirstAndCount) {
  std::vector<float> a = some_result(100), b = a;
  EXPECT_EQ(compare_results(reinterpret_cast<unsigned char*>(a.data()),
                            reinterpret_cast<unsigned char*>(b.data()), 100, 4)
                .count,
            0U);
  b[17] = -b[17];
  b[60] += 1;
  const Difference d = compare_results(reinterpret_cast<unsigned char*>(a.data()),
                                       reinterpret_cast<unsigned char*>(b.data()), 100, 4);
  EXPECT_EQ(d.count, 2U);
  EXPECT_EQ(d.first, 17U);
}

TEST(GemmVerdict, ClassesAndTheirDescription) {
  const std::vector<std::string> keys = {"lib | A", "lib | A", "lib | B", "lib | A", "lib | A"};
  const auto cls = classes_of(keys);
  EXPECT_EQ(cls, (std::vector<int>{0, 0, 1, 0, 0}));
  EXPECT_EQ(describe_classes(keys, cls), "lib | A: 0-1,3-4; lib | B: 2");
}

TEST(GemmVerdict, SmallShapesCheckEveryElement) {
  const auto all = matmul::all_elements({3, 2, 5});
  ASSERT_EQ(all.size(), 6U);
  EXPECT_EQ(all.front().i, 0);
  EXPECT_EQ(all.front().j, 0);
  std::vector<int> seen(6, 0);
  for (const auto& e : all) ++seen[static_cast<std::size_t>(e.j * 3 + e.i)];
  for (int x : seen) EXPECT_EQ(x, 1);
}

// A GEMM that writes all of C in its first `full` runs and then only its first half: the fault
// the poisoning before each run catches (a C kept from the previous run would hash the same).
class HalfWritingGemm final : public matmul::GemmOperation {
 public:
  explicit HalfWritingGemm(int full) : full_(full) {}
  void fill() override { poison_result(); }
  void run() override {
    const std::size_t n = ++runs_ > full_ ? c_.size() / 2 : c_.size();
    for (std::size_t i = 0; i < n; ++i) c_[i] = static_cast<float>(i) + 0.5F;
  }
  std::uint64_t count_wrong() override { return 0; }
  void corrupt_result() override {}
  std::int64_t algorithm() const override { return -1; }
  std::uint64_t result_hash() override { return hash_bytes(c_.data(), c_.size() * sizeof(float)); }
  std::vector<unsigned char> result_bytes() override {
    const auto* p = reinterpret_cast<const unsigned char*>(c_.data());
    return {p, p + c_.size() * sizeof(float)};
  }
  std::size_t result_element_bytes() const override { return sizeof(float); }
  double result_value(const unsigned char* e) const override {
    float v = 0;
    std::memcpy(&v, e, sizeof(v));
    return v;
  }
  void poison_result() override { std::memset(c_.data(), 0xff, c_.size() * sizeof(float)); }

 private:
  int full_, runs_ = 0;
  std::vector<float> c_ = std::vector<float>(16);
};

class HalfWritingBackend final : public matmul::GemmBackend {
 public:
  std::string_view name() const override { return "half"; }
  std::string library() const override { return "half"; }
  bool on_gpu() const override { return false; }
  bool supports(matmul::DType) const override { return true; }
  std::string unavailable() const override { return ""; }
  matmul::Peak peak(matmul::DType, const matmul::CpuPeakInputs&) const override { return {}; }
  std::unique_ptr<matmul::GemmOperation> make_operation(const matmul::GemmPoint&) override {
    return std::make_unique<HalfWritingGemm>(2);  // the check run and its repetition
  }
};

TEST(GemmCheck, CIsPoisonedBeforeEveryRunSoAnUnwrittenPartFails) {
  int started = 0;
  MPI_Initialized(&started);
  if (!started) MPI_Init(nullptr, nullptr);  // finalised by operation_timing_test.cpp's environment
  GemmCheckSpec spec;
  spec.shapes = {{4, 4, 4}};
  spec.class_of = {0};
  auto comm = std::make_shared<MPI_Comm>(MPI_COMM_SELF);
  GemmCheckCase c(spec, std::make_shared<HalfWritingBackend>(), comm, 0);
  auto op = c.make_operation(0);
  op->fill();
  op->run();  // the check run: runs 1 and 2 write all of C and agree
  EXPECT_EQ(op->wrong_in_runs(), 0U);
  op->before_iteration();
  op->run();  // writes half of C: the other half is NaN, not the previous run's values
  EXPECT_EQ(op->wrong_in_runs(), 8U);
}

}  // namespace
}  // namespace preflight::correctness
