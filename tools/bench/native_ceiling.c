/*
 * The native ceiling of a bcolz read on this machine: c-blosc (the system's libblosc, the one
 * python3-blosc uses) reading a float64 carray directory of the store benchmark with one thread
 * or with two, each thread reading and decoding its half of the chunk files. tools/bench/ceiling.mjs
 * builds and drives it; tools/bench/README.md, "Issue 16, step by step (2026-12-02, early morning
 * session)", says what it showed.
 *
 * Why: issue 16 asks for read-all and column reads at 0.7x real bcolz's time and a sum at 0.8x.
 * bcolz 1.2.1 decodes with one c-blosc thread into a fresh numpy array; what native code reaches
 * on the same files with every core of the machine bounds what any reader can.
 *
 * A line server, so that its runs take turns with the other sides' in the same rounds. A request
 * line is `readall|sum THREADS DIRECTORY` (the directory is the rest of the line) or `version`.
 * The reply to an operation is `ok MS SUM HASH COUNT` or `error WHY`: the operation's wall time in
 * milliseconds, measured here around all of it, the metadata's reading included (bcolz's column
 * read and sum open their array outside their timing: ~0.1 ms more on this side); the sum of the
 * values read, to compare with the other sides; for a read-all, a hash of the result in row order
 * (the sum of (i + 1) x its 32-bit word i, modulo 2^32: exact whatever the values, NaN included;
 * `-` for a sum, whose timed loop only adds); and how many values were decoded. `version` answers
 * `ok` and the library's version.
 *
 * The read-all's result is fresh memory for every run, advised into transparent huge pages as
 * numpy does for large arrays, and freed after it, as a dropped numpy array is. The sum decodes
 * each chunk into one reused buffer per thread, as bcolz's and the floor's sums do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* From c-blosc's blosc.h (1.x), declared here so that only the shared library is needed. */
int blosc_decompress_ctx(const void *src, void *dest, size_t destsize, int numinternalthreads);
const char *blosc_get_version_string(void);

/* bcolz's format-1 chunk files: a 16-byte bloscpack header, then one Blosc chunk. */
#define FILE_HEADER 16

typedef struct {
  const char *dir;
  long long rows;
  long long chunklen;
  long long nfiles;
  char *result; /* read-all: the values, row 0 first; NULL for a sum */
  long long from, to; /* this thread's files */
  double sum;
  long long count; /* values decoded */
  char error[512];
} part_t;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The whole small file at `path` as a NUL-terminated string, or NULL. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  char *text = calloc(1, 65536);
  size_t n = text ? fread(text, 1, 65535, f) : 0;
  fclose(f);
  if (text != NULL) text[n] = 0;
  return text;
}

/* The first integer after `"key":` in `text`, or -1. */
static long long json_integer(const char *text, const char *key) {
  char quoted[64];
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  const char *at = strstr(text, quoted);
  if (at == NULL) return -1;
  at += strlen(quoted);
  while (*at == ' ' || *at == ':' || *at == '[') at++;
  return (*at >= '0' && *at <= '9') ? strtoll(at, NULL, 10) : -1;
}

/* Reads the carray's metadata into `p`; an error message, or NULL. */
static const char *open_carray(part_t *p, const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%.3800s/meta/sizes", dir);
  char *sizes = slurp(path);
  snprintf(path, sizeof path, "%.3800s/meta/storage", dir);
  char *storage = slurp(path);
  const char *why = NULL;
  if (sizes == NULL || storage == NULL) why = "cannot read meta/sizes or meta/storage";
  else if (strstr(storage, "\"float64\"") == NULL) why = "not a float64 carray";
  else {
    p->dir = dir;
    p->rows = json_integer(sizes, "shape");
    p->chunklen = json_integer(storage, "chunklen");
    if (p->rows < 0 || p->chunklen <= 0) why = "no shape or chunklen in the metadata";
    else p->nfiles = (p->rows + p->chunklen - 1) / p->chunklen;
  }
  free(sizes);
  free(storage);
  return why;
}

static void *read_part(void *arg) {
  part_t *p = arg;
  const size_t step = (size_t)p->chunklen * 8;
  /* One input buffer, grown to the largest file (as Python's whole-file read sizes its own). */
  size_t capacity = step + 4096 + FILE_HEADER;
  char *input = malloc(capacity);
  double *own = p->result == NULL ? malloc(step) : NULL;
  char path[4096];
  double sum = 0;
  if (input == NULL || (p->result == NULL && own == NULL)) {
    snprintf(p->error, sizeof p->error, "out of memory");
    goto done;
  }
  for (long long k = p->from; k < p->to; k++) {
    snprintf(path, sizeof path, "%.3800s/data/__%lld.blp", p->dir, k);
    int fd = open(path, O_RDONLY);
    struct stat st;
    ssize_t got = -1;
    if (fd >= 0 && fstat(fd, &st) == 0) {
      if ((size_t)st.st_size > capacity) {
        char *larger = realloc(input, (size_t)st.st_size);
        if (larger == NULL) {
          close(fd);
          snprintf(p->error, sizeof p->error, "out of memory");
          goto done;
        }
        input = larger;
        capacity = (size_t)st.st_size;
      }
      got = read(fd, input, (size_t)st.st_size);
    }
    if (fd >= 0) close(fd);
    long long rows = (k + 1) * p->chunklen > p->rows ? p->rows - k * p->chunklen : p->chunklen;
    char *dest = own != NULL ? (char *)own : p->result + (size_t)k * step;
    /* c-blosc 1.x trusts the chunk's header: its cbytes must lie within what was read, and its
       nbytes must be this chunk's rows. */
    unsigned cbytes = 0, nbytes = 0;
    if (got >= FILE_HEADER + 16) {
      memcpy(&nbytes, input + FILE_HEADER + 4, 4);
      memcpy(&cbytes, input + FILE_HEADER + 12, 4);
    }
    if (got < FILE_HEADER + 16 || cbytes < 16 || cbytes > (size_t)got - FILE_HEADER || nbytes != (size_t)rows * 8 ||
        blosc_decompress_ctx(input + FILE_HEADER, dest, (size_t)rows * 8, 1) != rows * 8) {
      snprintf(p->error, sizeof p->error, "cannot read or decode %.400s (%.60s)", path, got < 0 ? strerror(errno) : "bad chunk");
      goto done;
    }
    p->count += rows;
    if (own != NULL) {
      /* Eight running totals, as numpy's sum keeps: one chain of additions would wait on each. */
      double t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      long long i = 0;
      for (; i + 8 <= rows; i += 8)
        for (int j = 0; j < 8; j++) t[j] += own[i + j];
      for (; i < rows; i++) t[0] += own[i];
      sum += ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
    }
  }
done:
  p->sum = sum;
  free(own);
  free(input);
  return NULL;
}

/* One operation; writes its reply line. */
static void run(const char *op, const char *dir, int threads) {
  part_t parts[2];
  memset(parts, 0, sizeof parts);
  int summing = strcmp(op, "sum") == 0;
  if (!summing && strcmp(op, "readall") != 0) {
    printf("error unknown operation %s\n", op);
    return;
  }
  if (threads != 1 && threads != 2) {
    printf("error threads must be 1 or 2\n");
    return;
  }
  double t0 = now_ms();
  const char *why = open_carray(&parts[0], dir);
  if (why != NULL) {
    printf("error %.3800s: %s\n", dir, why);
    return;
  }
  size_t bytes = (size_t)parts[0].rows * 8;
  if (!summing) {
    parts[0].result = malloc(bytes);
    if (parts[0].result == NULL) {
      printf("error out of memory\n");
      return;
    }
    /* numpy advises large arrays into huge pages; the rest of the bench runs with them too. */
    size_t start = ((size_t)parts[0].result + 4095) & ~(size_t)4095;
    if (bytes > 8192) madvise((void *)start, bytes - 8192, MADV_HUGEPAGE);
  }
  parts[1] = parts[0];
  long long half = threads == 2 ? parts[0].nfiles / 2 : parts[0].nfiles;
  parts[0].from = 0;
  parts[0].to = half;
  parts[1].from = half;
  parts[1].to = parts[0].nfiles;
  pthread_t other;
  int started = threads == 2 && pthread_create(&other, NULL, read_part, &parts[1]) == 0;
  if (threads == 2 && !started) snprintf(parts[1].error, sizeof parts[1].error, "cannot start a thread");
  read_part(&parts[0]);
  if (started) pthread_join(other, NULL);
  double ms = now_ms() - t0;
  double check = parts[0].sum + parts[1].sum;
  unsigned hash = 0;
  if (!summing) {
    const double *values = (const double *)parts[0].result;
    const unsigned *words = (const unsigned *)parts[0].result;
    check = 0;
    for (long long i = 0; i < parts[0].rows; i++) check += values[i];
    for (long long i = 0; i < 2 * parts[0].rows; i++) hash += (unsigned)(i + 1) * words[i];
    free(parts[0].result);
  }
  long long count = parts[0].count + parts[1].count;
  if (parts[0].error[0] || parts[1].error[0]) printf("error %s\n", parts[0].error[0] ? parts[0].error : parts[1].error);
  else if (summing) printf("ok %.4f %.17g - %lld\n", ms, check, count);
  else printf("ok %.4f %.17g %u %lld\n", ms, check, hash, count);
}

int main(void) {
  char line[8192], op[32];
  int threads, at;
  while (fgets(line, sizeof line, stdin) != NULL) {
    line[strcspn(line, "\r\n")] = 0;
    if (strcmp(line, "quit") == 0) break;
    if (strcmp(line, "version") == 0) printf("ok %s\n", blosc_get_version_string());
    else if (sscanf(line, "%31s %d %n", op, &threads, &at) != 2 || line[at] == 0) printf("error expected: readall|sum THREADS DIRECTORY\n");
    else run(op, line + at, threads);
    fflush(stdout);
  }
  return 0;
}
