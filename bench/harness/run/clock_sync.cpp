#include "harness/run/clock_sync.hpp"

#include <chrono>
#include <cmath>
#include <limits>

namespace preflight {
namespace {

constexpr int kPingTag = 7301;        // only this exchange is in flight while it runs
constexpr double kRounding_s = 1e-9;  // a double's rounding of seconds since boot, and then some

// Rank 0's side with one other rank: the ping-pong with the shortest round trip.
ClockOffset ping(MPI_Comm world, int rank, int rounds, double (*clock)()) {
  ClockOffset best{0, std::numeric_limits<double>::infinity()};
  for (int i = 0; i < rounds; ++i) {
    double remote = 0;
    const double sent = clock();
    MPI_Send(nullptr, 0, MPI_BYTE, rank, kPingTag, world);
    MPI_Recv(&remote, 1, MPI_DOUBLE, rank, kPingTag, world, MPI_STATUS_IGNORE);
    const double received = clock();
    if (received - sent < best.round_trip_s)
      best = {offset_from_ping(sent, remote, received), received - sent};
  }
  return best;
}

// The other rank's side: its clock, read as soon as each ping arrives.
void pong(MPI_Comm world, int rounds, double (*clock)()) {
  for (int i = 0; i < rounds; ++i) {
    MPI_Recv(nullptr, 0, MPI_BYTE, 0, kPingTag, world, MPI_STATUS_IGNORE);
    const double now = clock();
    MPI_Send(&now, 1, MPI_DOUBLE, 0, kPingTag, world);
  }
}

}  // namespace

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double offset_from_ping(double sent_s, double remote_s, double received_s) {
  return remote_s - (sent_s + received_s) / 2;
}

std::vector<ClockOffset> measure_clock_offsets(MPI_Comm world, int rounds, double (*clock)()) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  std::vector<double> flat(2 * static_cast<std::size_t>(size), 0);  // offset, round trip
  for (int r = 1; r < size; ++r) {
    // Rank by rank, so that each exchange has rank 0 to itself; the others wait in MPI_Recv.
    if (rank == 0) {
      const ClockOffset o = ping(world, r, rounds, clock);
      flat[2 * static_cast<std::size_t>(r)] = o.offset_s;
      flat[2 * static_cast<std::size_t>(r) + 1] = o.round_trip_s;
    } else if (rank == r) {
      pong(world, rounds, clock);
    }
  }
  MPI_Bcast(flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, 0, world);
  std::vector<ClockOffset> out;
  for (int r = 0; r < size; ++r)
    out.push_back(
        {flat[2 * static_cast<std::size_t>(r)], flat[2 * static_cast<std::size_t>(r) + 1]});
  return out;
}

RankClocks rank_clocks(const std::vector<ClockOffset>& measured,
                       const std::vector<bool>& shares_rank0_kernel) {
  RankClocks clocks;
  for (std::size_t r = 0; r < measured.size(); ++r) {
    const ClockOffset& m = measured[r];
    const bool same_kernel = r < shares_rank0_kernel.size() && shares_rank0_kernel[r];
    // On one clock, rank 0's two stamps enclose the other's: the offset is within half the trip.
    const bool one_clock =
        r == 0 || (same_kernel && std::abs(m.offset_s) <= m.round_trip_s / 2 + kRounding_s);
    clocks.offset_s.push_back(one_clock ? 0 : m.offset_s);
    clocks.error_s.push_back(one_clock ? 0 : m.round_trip_s / 2);
  }
  return clocks;
}

}  // namespace preflight
