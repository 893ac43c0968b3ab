/* A bare TurboJPEG decode loop, timed: the calls preflight's decode stage makes (header, then
 * tjDecompress2 to RGB, accurate DCT, one thread) over the JPEG files given, each read into
 * memory first. Two orders:
 *   cycle:  the files in turn, PASSES times, as a pipeline decodes a stream of distinct images;
 *   repeat: each file PASSES times back to back, as tjbench times one image over and over (its
 *           branch predictors and caches learn that one image).
 * Prints images/s over all decodes.
 *   bare_decode cycle|repeat PASSES FILE... */
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

static unsigned char* out;
static void decode(tjhandle h, const unsigned char* jpeg, unsigned long size) {
  int w, ht, sub, space;
  if (tjDecompressHeader3(h, jpeg, size, &w, &ht, &sub, &space) != 0 ||
      tjDecompress2(h, jpeg, size, out, w, w * 3, ht, TJPF_RGB, 0) != 0) {
    fprintf(stderr, "decode failed: %s\n", tjGetErrorStr2(h));
    exit(1);
  }
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: bare_decode cycle|repeat PASSES FILE...\n");
    return 2;
  }
  const int repeat = strcmp(argv[1], "repeat") == 0, passes = atoi(argv[2]), n = argc - 3;
  unsigned char** jpeg = malloc(sizeof *jpeg * (size_t)n);
  unsigned long* size = malloc(sizeof *size * (size_t)n);
  for (int i = 0; i < n; ++i) jpeg[i] = slurp(argv[3 + i], &size[i]);
  out = malloc(4096u * 4096u * 3u);
  tjhandle h = tjInitDecompress();
  for (int i = 0; i < n; ++i) decode(h, jpeg[i], size[i]); /* warm-up: one of each */
  const double t = now();
  if (repeat)
    for (int i = 0; i < n; ++i)
      for (int p = 0; p < passes; ++p) decode(h, jpeg[i], size[i]);
  else
    for (int p = 0; p < passes; ++p)
      for (int i = 0; i < n; ++i) decode(h, jpeg[i], size[i]);
  printf("%.1f\n", (double)n * passes / (now() - t));
  return 0;
}
