#include "fabric/pair_case.hpp"

#include <fmt/format.h>

#include <cstddef>

#include "preflight/schema/fabric.hpp"

namespace preflight::fabric {
namespace {

// The byte a sender puts at index i: depends on the sender and the index, so a message from
// the wrong rank, or a shifted or truncated one, is caught.
std::uint8_t pattern(int sender, std::size_t i) {
  return static_cast<std::uint8_t>((static_cast<std::size_t>(sender) * 131 + i * 7 + 1) & 0xff);
}

// What one member of a pair does. `first` (the lower rank) starts the ping-pong and sends in the
// one-way test; the other answers and receives. Each operation ends with both sides done:
// the one-way receiver acknowledges the window, so the sender's time covers the delivery.
class PairOperation final : public Operation {
 public:
  PairOperation(PairTest test, std::size_t bytes, int window, int me, int peer,
                std::shared_ptr<Transport> transport)
      : test_(test),
        bytes_(bytes),
        window_(test == PairTest::kLatency ? 1 : window),
        me_(me),
        peer_(peer),
        first_(me < peer),
        send_(bytes),
        recv_(bytes),
        ack_(1),
        transport_(std::move(transport)) {
    for (auto* b : {&send_, &recv_, &ack_})
      if (!b->empty()) transport_->register_buffer(b->data(), b->size());
  }

  void fill() override {
    for (std::size_t i = 0; i < bytes_; ++i) send_[i] = pattern(me_, i);
    std::fill(recv_.begin(), recv_.end(), std::uint8_t{0});
    received_ = false;
  }

  void run() override {
    Transport& t = *transport_;
    switch (test_) {
      case PairTest::kLatency:
        if (first_) {
          t.post_send(send_.data(), bytes_, peer_);
          t.complete_all();
          t.post_recv(recv_.data(), bytes_, peer_);
        } else {
          t.post_recv(recv_.data(), bytes_, peer_);
          t.complete_all();
          t.post_send(send_.data(), bytes_, peer_);
        }
        t.complete_all();
        received_ = true;
        break;
      case PairTest::kBandwidth:
        for (int m = 0; m < window_; ++m)
          first_ ? t.post_send(send_.data(), bytes_, peer_)
                 : t.post_recv(recv_.data(), bytes_, peer_);
        if (first_) t.post_recv(ack_.data(), 1, peer_);
        t.complete_all();
        if (!first_) {
          t.post_send(ack_.data(), 1, peer_);
          t.complete_all();
          received_ = true;
        }
        break;
      case PairTest::kBidirectional:
        for (int m = 0; m < window_; ++m) {
          t.post_recv(recv_.data(), bytes_, peer_);
          t.post_send(send_.data(), bytes_, peer_);
        }
        t.complete_all();
        received_ = true;
        break;
    }
  }

  std::uint64_t count_wrong() override {
    if (!received_) return 0;
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < bytes_; ++i) wrong += recv_[i] != pattern(peer_, i) ? 1 : 0;
    return wrong;
  }
  void corrupt_result() override {
    if (received_ && !recv_.empty()) recv_[0] = static_cast<std::uint8_t>(recv_[0] ^ 0xff);
  }

 private:
  PairTest test_;
  std::size_t bytes_;
  int window_;
  int me_, peer_;
  bool first_;
  bool received_ = false;
  std::vector<std::uint8_t> send_, recv_, ack_;
  std::shared_ptr<Transport> transport_;
};

std::string pairs_text(const std::vector<std::pair<int, int>>& pairs) {
  std::string out;
  for (const auto& [a, b] : pairs) out += fmt::format("{}{}:{}", out.empty() ? "" : " ", a, b);
  return out;
}

}  // namespace

std::string_view name_of(PairTest t) {
  switch (t) {
    case PairTest::kLatency:
      return "latency";
    case PairTest::kBandwidth:
      return "bandwidth";
    case PairTest::kBidirectional:
      return "bidirectional";
  }
  return "";
}

PairCase::PairCase(PairCaseSpec spec, int world_size, int my_rank, std::vector<std::uint64_t> sizes,
                   std::shared_ptr<Transport> transport)
    : spec_(std::move(spec)),
      my_rank_(my_rank),
      group_of_rank_(static_cast<std::size_t>(world_size), -1),
      sizes_(std::move(sizes)),
      transport_(std::move(transport)) {
  for (std::size_t g = 0; g < spec_.pairs.size(); ++g) {
    group_of_rank_[static_cast<std::size_t>(spec_.pairs[g].first)] = static_cast<int>(g);
    group_of_rank_[static_cast<std::size_t>(spec_.pairs[g].second)] = static_cast<int>(g);
  }
}

std::string PairCase::name() const {
  return fmt::format("{} pass {} round {}", name_of(spec_.test), spec_.pass + 1, spec_.round + 1);
}

std::vector<Param> PairCase::params() const {
  return {
      attr(schema::fabric::kPairTest, name_of(spec_.test)),
      attr(schema::fabric::kTransport, std::string(transport_->name())),
      attr(schema::fabric::kProvider, transport_->provider()),
      attr(schema::fabric::kRound, std::int64_t{spec_.round}),
      attr(schema::fabric::kSweepPass, spec_.pass),
      attr(schema::fabric::kPairs, pairs_text(spec_.pairs)),
      attr(schema::fabric::kWindow,
           std::int64_t{spec_.test == PairTest::kLatency ? 1 : spec_.window}),
  };
}

schema::OwnMeaning PairCase::own_meaning() const {
  return {.subject = std::string(name_of(spec_.test))};
}

std::vector<Param> PairCase::point_columns(std::size_t point, int /*group*/) const {
  const auto& size = spec_.test == PairTest::kLatency ? schema::fabric::kSizeBytesColumn
                                                      : schema::fabric::kSizeBytesColumn;
  return {column_param(size, static_cast<std::int64_t>(sizes_[point]), true)};
}

std::vector<Metric> PairCase::metrics(std::size_t point, int /*group*/, double seconds) const {
  namespace s = schema;
  if (spec_.test == PairTest::kLatency)
    return {
        metric(s::fabric::kRoundTripColumn, seconds, &s::fabric::kBatchedRoundTripColumn),
        metric(s::fabric::kPairLatencyColumn, seconds / 2, &s::fabric::kBatchedPairLatencyColumn)};
  const double ways = spec_.test == PairTest::kBidirectional ? 2 : 1;
  const double bytes = ways * spec_.window * static_cast<double>(sizes_[point]);
  return {metric(s::fabric::kPairBandwidthColumn, bytes / seconds / 1e9,
                 &s::fabric::kBatchedPairBandwidthColumn)};
}

std::unique_ptr<Operation> PairCase::make_operation(std::size_t point) {
  const int group = group_of_rank_[static_cast<std::size_t>(my_rank_)];
  if (group < 0) return nullptr;
  const auto& [a, b] = spec_.pairs[static_cast<std::size_t>(group)];
  return std::make_unique<PairOperation>(spec_.test, sizes_[point], spec_.window, my_rank_,
                                         my_rank_ == a ? b : a, transport_);
}

}  // namespace preflight::fabric
