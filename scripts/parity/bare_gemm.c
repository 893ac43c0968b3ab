/* A bare OpenBLAS GEMM, timed: the same call as preflight's matmul family makes (column-major,
 * A transposed: C = A^T B, "TN"), the same shape and threads, random inputs in [-1, 1).
 * Prints the median over ITERS timed calls after WARMUP untimed ones, in GFLOP/s.
 *   bare_gemm M N K THREADS ITERS WARMUP float32|float64 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  if (argc != 8) return fprintf(stderr, "usage: bare_gemm M N K THREADS ITERS WARMUP DTYPE\n"), 2;
  const int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]), iters = atoi(argv[5]),
            warmup = atoi(argv[6]);
  const int dbl = strcmp(argv[7], "float64") == 0;
  openblas_set_num_threads(atoi(argv[4]));
  const size_t es = dbl ? 8 : 4;
  void *a = aligned_alloc(4096, es * (size_t)k * m + 4096),
       *b = aligned_alloc(4096, es * (size_t)k * n + 4096),
       *c = aligned_alloc(4096, es * (size_t)m * n + 4096);
  srand(1);
  for (size_t e = 0; e < (size_t)k * m; ++e) {
    const double v = 2.0 * rand() / RAND_MAX - 1;
    if (dbl)
      ((double*)a)[e] = v;
    else
      ((float*)a)[e] = (float)v;
  }
  for (size_t e = 0; e < (size_t)k * n; ++e) {
    const double v = 2.0 * rand() / RAND_MAX - 1;
    if (dbl)
      ((double*)b)[e] = v;
    else
      ((float*)b)[e] = (float)v;
  }
  double* t = malloc(sizeof(double) * (size_t)iters);
  for (int i = -warmup; i < iters; ++i) {
    const double t0 = now();
    if (dbl)
      cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, k, 0.0, c, m);
    else
      cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, k, 0.0f, c, m);
    if (i >= 0) t[i] = now() - t0;
  }
  qsort(t, (size_t)iters, sizeof(double), by_value);
  const double median = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
  printf("%.6f\n", 2.0 * m * n * k / median / 1e9);
  return 0;
}
