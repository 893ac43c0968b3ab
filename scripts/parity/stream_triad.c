/* A plain STREAM-style triad (a = b + s c, McCalpin's loop) over N doubles per array, one thread:
 * arrays page-aligned and first touched, WARMUP untimed runs, then the median of ITERS timed
 * runs, printed as GB/s counted as STREAM does (3 arrays x 8 B x N).
 *   stream_triad N ITERS WARMUP */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc != 4) return fprintf(stderr, "usage: stream_triad N ITERS WARMUP\n"), 2;
  const size_t n = (size_t)atoll(argv[1]);
  const int iters = atoi(argv[2]), warmup = atoi(argv[3]);
  double* restrict a = aligned_alloc(4096, n * 8 + 4096);
  double* restrict b = aligned_alloc(4096, n * 8 + 4096);
  double* restrict c = aligned_alloc(4096, n * 8 + 4096);
  for (size_t j = 0; j < n; ++j) a[j] = 1, b[j] = 2, c[j] = 0.5;
  const double s = 3.0;
  double* t = malloc(sizeof(double) * (size_t)iters);
  for (int i = -warmup; i < iters; ++i) {
    const double t0 = now();
    for (size_t j = 0; j < n; ++j) a[j] = b[j] + s * c[j];
    if (i >= 0) t[i] = now() - t0;
  }
  qsort(t, (size_t)iters, sizeof(double), by_value);
  const double median = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
  printf("%.6f %g\n", 3.0 * 8 * (double)n / median / 1e9, a[n / 2]);
  return 0;
}
