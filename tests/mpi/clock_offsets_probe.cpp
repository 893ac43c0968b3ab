// Measures the ranks' clock offsets to rank 0 (harness/run/clock_sync.hpp) under mpirun on one
// host, where every rank reads the same CLOCK_MONOTONIC: each measured offset must come out within
// half its round trip of 0 (rank 0's two stamps enclose the other rank's), every round trip must
// be a positive time, and every rank must get the same table. Prints the table; exit 1 on any
// failure. Run on one host only: across hosts the offsets are real.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "harness/run/clock_sync.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto offsets = preflight::measure_clock_offsets(MPI_COMM_WORLD, 10);
  int failures = 0;
  if (static_cast<int>(offsets.size()) != size) ++failures;
  // Every rank holds rank 0's table: the sum of the offsets is the same everywhere.
  double sum = 0;
  for (const auto& o : offsets) sum += o.offset_s + o.round_trip_s;
  double low = 0, high = 0;
  MPI_Allreduce(&sum, &low, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&sum, &high, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (low != high) ++failures;
  if (rank == 0) {
    if (low != high) std::printf("FAIL: the ranks hold different offset tables\n");
    for (int r = 0; r < size; ++r) {
      const auto& o = offsets[static_cast<std::size_t>(r)];
      const bool rank0 = r == 0;
      const bool ok = rank0 ? o.offset_s == 0 && o.round_trip_s == 0
                            : o.round_trip_s > 0 && o.round_trip_s < 10 &&
                                  std::abs(o.offset_s) <= o.round_trip_s / 2 + 1e-9;
      std::printf("%s rank %d: offset %+.3f us, round trip %.3f us\n", ok ? "ok:  " : "FAIL:", r,
                  o.offset_s * 1e6, o.round_trip_s * 1e6);
      failures += ok ? 0 : 1;
    }
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s\n",
                total == 0 ? "PASS: offsets on one host are 0 within half the round trip" : "FAIL");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
