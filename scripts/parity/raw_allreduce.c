/* A bare timed MPI_Allreduce loop, the yardstick for preflight's own timing. It measures the
 * same two things preflight does, in the same order, with nothing around them:
 *   per-iteration: barrier, time one MPI_Allreduce; the iteration's time is the slowest rank's;
 *   back-to-back:  barrier, time `ops` MPI_Allreduce calls, divide; again the slowest rank's.
 * Prints, in seconds: the median of each (over iterations of the slowest rank's time), then the
 * mean of rank means of each (each rank's mean time, averaged over ranks: the statistic of peer
 * tools such as the OSU micro-benchmarks).
 * RAW_BURN_MS=N (a diagnostic, default 0) keeps each rank busy for N ms before the warm-up, as
 * preflight's ranks are (start-up, environment, results file, correctness check) before their
 * first timed iteration. On a machine shared with other busy processes the kernel's scheduler
 * preempts a rank that has been busy for a while far more often than one that has just woken,
 * which shows in the mean of rank means (not in the medians).
 * usage: raw_allreduce BYTES ITERATIONS WARMUP BLOCKS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double mean(const double* v, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += v[i];
  return n > 0 ? sum / n : 0;
}

static float* page_aligned_zeros(size_t count) {
  void* p = NULL;
  if (posix_memalign(&p, 4096, count * sizeof(float)) != 0) {
    fprintf(stderr, "raw_allreduce: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < count; ++i) ((float*)p)[i] = 0;
  return (float*)p;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 5) {
    fprintf(stderr, "usage: raw_allreduce BYTES ITERATIONS WARMUP BLOCKS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long bytes = atol(argv[1]);
  const int iterations = atoi(argv[2]), warmup = atoi(argv[3]), blocks = atoi(argv[4]);
  const int count = bytes / 4 > 0 ? (int)(bytes / 4) : 1;
  const int ops = iterations / blocks > 0 ? iterations / blocks : 1;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  /* Page-aligned, as the OSU micro-benchmarks' buffers and preflight's are: calloc's placement
   * left the copies inside MPI_Allreduce up to 5x slower or faster by chance (see
   * kernels/cpu/page_aligned.hpp). */
  float* send = page_aligned_zeros((size_t)count);
  float* recv = page_aligned_zeros((size_t)count);
  double* mine = malloc(sizeof(double) * (size_t)(iterations + blocks));
  double* slowest = malloc(sizeof(double) * (size_t)(iterations + blocks));
  for (int i = 0; i < count; ++i) send[i] = (float)(i % 61 + 1);

  const char* burn_ms = getenv("RAW_BURN_MS");
  if (burn_ms != NULL) {
    const double until = MPI_Wtime() + atof(burn_ms) / 1e3;
    while (MPI_Wtime() < until) {
    }
  }
  for (int i = 0; i < warmup; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  for (int i = 0; i < iterations; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    mine[i] = MPI_Wtime() - start;
  }
  for (int b = 0; b < blocks; ++b) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int k = 0; k < ops; ++k)
      MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    mine[iterations + b] = (MPI_Wtime() - start) / ops;
  }
  const double my_means[2] = {mean(mine, iterations), mean(mine + iterations, blocks)};
  double sum_of_means[2] = {0, 0};
  MPI_Reduce(my_means, sum_of_means, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, slowest, iterations + blocks, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const double per_iteration = median(slowest, iterations);
    const double batched = median(slowest + iterations, blocks);
    printf("%.9e %.9e %.9e %.9e\n", per_iteration, batched, sum_of_means[0] / ranks,
           sum_of_means[1] / ranks);
  }
  free(send);
  free(recv);
  free(mine);
  free(slowest);
  MPI_Finalize();
  return 0;
}
