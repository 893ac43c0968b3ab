// Where each rank's monotonic clock stands against rank 0's, measured once per run through MPI,
// outside every timed region, so that the ranks' time stamps can be put on one clock: a span
// across ranks (first start to last finish, as IOR times a phase) needs one. Ranks that share
// rank 0's kernel share its CLOCK_MONOTONIC and need no offset; ranks on other hosts get the
// offset of the ping-pong with the shortest round trip, as NTP does, which is right to within
// half that round trip.
#pragma once

#include <mpi.h>

#include <vector>

namespace preflight {

// Seconds on this rank's monotonic clock (std::chrono::steady_clock, CLOCK_MONOTONIC).
double monotonic_seconds();

// One rank's clock against rank 0's, from the ping-pong with the shortest round trip.
struct ClockOffset {
  double offset_s = 0;      // this rank's clock minus rank 0's: its stamp t is t - offset_s there
  double round_trip_s = 0;  // of that ping-pong: the offset is right to within half of it
};

// The offset one ping-pong gives: rank 0 sent at `sent_s` and heard back at `received_s` (its
// clock); the other rank read its own clock, `remote_s`, in between.
double offset_from_ping(double sent_s, double remote_s, double received_s);

// Collective over `world`: rank 0 exchanges `rounds` ping-pongs with each other rank in turn and
// keeps each rank's shortest. Every rank gets every rank's offset, in rank order (rank 0's: 0, 0).
// `clock`: which clock to compare (the monotonic one by default; the environment checks compare
// wall clocks).
std::vector<ClockOffset> measure_clock_offsets(MPI_Comm world, int rounds,
                                               double (*clock)() = &monotonic_seconds);

// Every rank's clock as the harness uses it.
struct RankClocks {
  std::vector<double> offset_s;  // world rank -> offset to subtract from its stamps
  std::vector<double> error_s;   // world rank -> how far off that can be (0: rank 0's own clock)
};

// From the measured offsets and, per rank, whether it shares rank 0's kernel: a rank on that
// kernel reads the same clock (offset 0, exact), unless the measurement says otherwise (outside
// half its round trip: a time namespace shifted that rank's clock); others, the measured offset.
RankClocks rank_clocks(const std::vector<ClockOffset>& measured,
                       const std::vector<bool>& shares_rank0_kernel);

}  // namespace preflight
