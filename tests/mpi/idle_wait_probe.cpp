// The harness's idle waits (harness/run/idle_wait.hpp) do not spin: rank 0 sleeps 1 s (untimed
// work, as writing a case's results) while the other ranks wait for it in idle_barrier and then in
// idle_bcast; each waiting rank's CPU time over the wait must stay under a quarter of it (a
// spinning wait takes the CPU whenever the scheduler lets it: most of the second alone, a third
// or more of a shared core). The broadcast value must arrive. The same wait through MPI_Barrier
// is measured and printed beside, for contrast only: how much a blocking wait spins depends on
// what else the host runs. Exit 1 on any failure.
#include <mpi.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "harness/run/idle_wait.hpp"

namespace {

constexpr double kWorkS = 1.0;
constexpr double kMostCpuS = 0.25;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// The CPU seconds this rank spent in `wait` while rank 0 slept kWorkS first.
template <typename Wait>
double cpu_while_rank0_works(int rank, Wait wait) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double before = cpu_seconds();
  if (rank == 0) std::this_thread::sleep_for(std::chrono::duration<double>(kWorkS));
  wait();
  return cpu_seconds() - before;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double idle_barrier_s =
      cpu_while_rank0_works(rank, [] { preflight::idle_barrier(MPI_COMM_WORLD); });
  int value = rank == 0 ? 42 : 0;
  const double idle_bcast_s = cpu_while_rank0_works(
      rank, [&] { preflight::idle_bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD); });
  const double blocking_s = cpu_while_rank0_works(rank, [] { MPI_Barrier(MPI_COMM_WORLD); });
  int failures = 0;
  if (rank != 0) {
    const bool barrier_ok = idle_barrier_s < kMostCpuS, bcast_ok = idle_bcast_s < kMostCpuS;
    const bool value_ok = value == 42;
    std::printf("%s rank %d: idle_barrier took %.3f s of CPU over rank 0's %.1f s (most %.2f)\n",
                barrier_ok ? "ok:  " : "FAIL:", rank, idle_barrier_s, kWorkS, kMostCpuS);
    std::printf("%s rank %d: idle_bcast took %.3f s of CPU, value %d (sent 42)\n",
                bcast_ok && value_ok ? "ok:  " : "FAIL:", rank, idle_bcast_s, value);
    std::printf("      rank %d: MPI_Barrier took %.3f s of CPU over the same wait (contrast)\n",
                rank, blocking_s);
    failures = (barrier_ok ? 0 : 1) + (bcast_ok ? 0 : 1) + (value_ok ? 0 : 1);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s\n", total == 0 ? "PASS: ranks waiting for rank 0's work did not spin" : "FAIL");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
