/* A bare TurboJPEG decode loop, timed: the calls preflight's decode stage makes (header, then
 * tjDecompress2 to RGB, accurate DCT) over the JPEG files given, each read into memory first.
 * Two orders:
 *   cycle:  the files in turn, PASSES times, as a pipeline decodes a stream of distinct images;
 *   repeat: each file PASSES times back to back, as tjbench times one image over and over (its
 *           branch predictors and caches learn that one image).
 * THREADS threads (default 1), each with its own TurboJPEG handle and output buffer, share the
 * files as a pipeline's workers share a data set: thread t decodes files t, t + THREADS, ... in
 * the order above. Prints images/s over all decodes: decodes / the wall time from the start of
 * the first thread's timed loop to the end of the last's (a barrier releases them together).
 *   bare_decode cycle|repeat PASSES [THREADS] FILE...   (THREADS: a number, else a file) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned char* slurp(const char* path, unsigned long* size) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  *size = (unsigned long)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* b = malloc(*size);
  if (!b || fread(b, 1, *size, f) != *size) {
    fprintf(stderr, "%s: short read\n", path);
    exit(2);
  }
  fclose(f);
  return b;
}

static void decode(tjhandle h, unsigned char* out, const unsigned char* jpeg, unsigned long size) {
  int w, ht, sub, space;
  if (tjDecompressHeader3(h, jpeg, size, &w, &ht, &sub, &space) != 0 ||
      tjDecompress2(h, jpeg, size, out, w, w * 3, ht, TJPF_RGB, 0) != 0) {
    fprintf(stderr, "decode failed: %s\n", tjGetErrorStr2(h));
    exit(1);
  }
}

static unsigned char** jpeg;
static unsigned long* size;
static int n, passes, repeat, threads;
static pthread_barrier_t start;

struct worker {
  int index;
  double begin, end;
};

static void* run(void* arg) {
  struct worker* w = arg;
  unsigned char* out = malloc(4096u * 4096u * 3u);
  tjhandle h = tjInitDecompress();
  if (!out || !h) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  for (int i = w->index; i < n; i += threads) decode(h, out, jpeg[i], size[i]); /* warm-up */
  pthread_barrier_wait(&start);
  w->begin = now();
  if (repeat)
    for (int i = w->index; i < n; i += threads)
      for (int p = 0; p < passes; ++p) decode(h, out, jpeg[i], size[i]);
  else
    for (int p = 0; p < passes; ++p)
      for (int i = w->index; i < n; i += threads) decode(h, out, jpeg[i], size[i]);
  w->end = now();
  tjDestroy(h);
  free(out);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: bare_decode cycle|repeat PASSES [THREADS] FILE...\n");
    return 2;
  }
  repeat = strcmp(argv[1], "repeat") == 0;
  passes = atoi(argv[2]);
  int first = 3;
  char* end = NULL;
  const long given = strtol(argv[3], &end, 10);
  threads = 1;
  if (*end == '\0' && given > 0) {
    threads = (int)given;
    first = 4;
  }
  n = argc - first;
  if (n < threads) {
    fprintf(stderr, "bare_decode: %d file(s) for %d threads\n", n, threads);
    return 2;
  }
  jpeg = malloc(sizeof *jpeg * (size_t)n);
  size = malloc(sizeof *size * (size_t)n);
  for (int i = 0; i < n; ++i) jpeg[i] = slurp(argv[first + i], &size[i]);
  struct worker* w = calloc((size_t)threads, sizeof *w);
  pthread_t* id = calloc((size_t)threads, sizeof *id);
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int t = 0; t < threads; ++t) {
    w[t].index = t;
    pthread_create(&id[t], NULL, run, &w[t]);
  }
  double begin = 0, finish = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(id[t], NULL);
    if (t == 0 || w[t].begin < begin) begin = w[t].begin;
    if (w[t].end > finish) finish = w[t].end;
  }
  printf("%.1f\n", (double)n * passes / (finish - begin));
  return 0;
}
