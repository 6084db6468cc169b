/*
 * SciddicaT, serial, in plain C: the study's reference program rebuilt from the rules Paralab's
 * `serial` backend implements (src/main/workloads/landslide/sciddica.ts), for
 * `paralab bench landslide --baseline c`.
 *
 *   sciddicat HEADER DEM SOURCE OUTPUT STEPS
 *
 * HEADER is an ESRI ASCII grid header (ncols, nrows, xllcorner, yllcorner, cellsize, optional
 * NODATA_value), DEM and SOURCE the grids without headers, first row (north) first. OUTPUT gets
 * the thickness after STEPS steps in the reference format: every value as "%f" and two spaces,
 * a newline after each row.
 *
 * As the study's program: double precision; the source carved out of the DEM once (z -= h where
 * h > 0) on interior cells; each step three sweeps over every interior cell (the one-cell border
 * never changes): reset the outflows, outflows by the minimization algorithm of the differences
 * (p_epsilon = 0.001, p_r = 0.5), thickness from in- and outflows. Neighbours: 0 centre, 1 north
 * (i-1), 2 west (j-1), 3 east (j+1), 4 south (i+1); outflow n-1 goes to neighbour n.
 * Beyond the study: DEM cells holding NODATA_value are walls that neither give nor receive (a
 * wall neighbour starts out eliminated), as in Paralab; on the Tessina grids no debris reaches
 * them, so the output is the study's.
 *
 * On stderr at the end, one line of figures for the bench:
 *   sciddicat: steps=N sim_wall_ms=W sim_cpu_ms=C cpu_ms=T
 * (the steps alone by the monotonic clock and by this process's CPU time, and the whole process's
 * CPU time from getrusage).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/resource.h>

#define P_EPSILON 0.001
#define P_R 0.5
#define WALL_SELF 32

static void fail(const char *what, const char *path) {
  fprintf(stderr, "sciddicat: %s%s%s\n", what, path ? ": " : "", path ? path : "");
  exit(1);
}

static int rows, cols, has_nodata;
static double nodata;

static void read_header(const char *path) {
  FILE *f = fopen(path, "r");
  char key[64];
  double value;
  if (!f) fail("cannot open", path);
  rows = cols = 0;
  while (fscanf(f, "%63s %lf", key, &value) == 2) {
    if (!strcasecmp(key, "ncols")) cols = (int)value;
    else if (!strcasecmp(key, "nrows")) rows = (int)value;
    else if (!strcasecmp(key, "NODATA_value")) has_nodata = 1, nodata = value;
  }
  fclose(f);
  if (rows < 1 || cols < 1) fail("no ncols and nrows in", path);
}

static void read_grid(const char *path, double *v) {
  FILE *f = fopen(path, "r");
  long n = (long)rows * cols;
  if (!f) fail("cannot open", path);
  for (long k = 0; k < n; k++)
    if (fscanf(f, "%lf", &v[k]) != 1) fail("too few values in", path);
  fclose(f);
}

static double ms(const struct timespec *a, const struct timespec *b) {
  return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 6) fail("usage: sciddicat HEADER DEM SOURCE OUTPUT STEPS", NULL);
  int steps = atoi(argv[5]);
  read_header(argv[1]);
  long n = (long)rows * cols;
  double *z = malloc(n * sizeof *z), *h = malloc(n * sizeof *h);
  double *f[4];
  unsigned char *mask = calloc(n, 1);
  for (int d = 0; d < 4; d++) f[d] = calloc(n, sizeof **f);
  if (!z || !h || !mask || !f[0] || !f[1] || !f[2] || !f[3]) fail("out of memory", NULL);
  read_grid(argv[2], z);
  read_grid(argv[3], h);

  /* Walls, the source's NODATA read as 0, and the source carved out of the DEM. */
  for (int i = 1; i < rows - 1; i++)
    for (int j = 1; j < cols - 1; j++) {
      long k = (long)i * cols + j;
      if (has_nodata)
        mask[k] = (z[k] == nodata ? WALL_SELF : 0) | (z[k - cols] == nodata ? 2 : 0) | (z[k - 1] == nodata ? 4 : 0) |
                  (z[k + 1] == nodata ? 8 : 0) | (z[k + cols] == nodata ? 16 : 0);
    }
  for (long k = 0; k < n; k++)
    if (has_nodata && h[k] == nodata) h[k] = 0;
  for (int i = 1; i < rows - 1; i++)
    for (int j = 1; j < cols - 1; j++) {
      long k = (long)i * cols + j;
      if (h[k] > 0) z[k] -= h[k];
    }

  struct timespec wall0, wall1, cpu0, cpu1;
  clock_gettime(CLOCK_MONOTONIC, &wall0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
  for (int s = 0; s < steps; s++) {
    /* sigma0: reset the outflows. */
    for (int i = 1; i < rows - 1; i++)
      for (int j = 1; j < cols - 1; j++) {
        long k = (long)i * cols + j;
        f[0][k] = f[1][k] = f[2][k] = f[3][k] = 0;
      }
    /* sigma1: outflows by the minimization algorithm of the differences. */
    for (int i = 1; i < rows - 1; i++)
      for (int j = 1; j < cols - 1; j++) {
        long k = (long)i * cols + j;
        long nb[5] = {k, k - cols, k - 1, k + 1, k + cols};
        int eliminated[5];
        double u[5], m, average;
        int count, again;
        if (mask[k] & WALL_SELF) continue;
        m = h[k] - P_EPSILON;
        u[0] = z[k] + P_EPSILON;
        for (int d = 1; d < 5; d++) u[d] = z[nb[d]] + h[nb[d]];
        for (int d = 0; d < 5; d++) eliminated[d] = (mask[k] >> d) & 1;
        do {
          again = 0;
          average = m;
          count = 0;
          for (int d = 0; d < 5; d++)
            if (!eliminated[d]) {
              average += u[d];
              count++;
            }
          if (count != 0) average /= count;
          for (int d = 0; d < 5; d++)
            if (!eliminated[d] && average <= u[d]) {
              eliminated[d] = 1;
              again = 1;
            }
        } while (again);
        for (int d = 1; d < 5; d++) f[d - 1][k] = eliminated[d] ? 0 : (average - u[d]) * P_R;
      }
    /* sigma2: thickness from in- and outflows. */
    for (int i = 1; i < rows - 1; i++)
      for (int j = 1; j < cols - 1; j++) {
        long k = (long)i * cols + j;
        long nb[5] = {k, k - cols, k - 1, k + 1, k + cols};
        double next = h[k];
        for (int d = 1; d < 5; d++) next += f[3 - (d - 1)][nb[d]] - f[d - 1][k];
        h[k] = next;
      }
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
  clock_gettime(CLOCK_MONOTONIC, &wall1);

  FILE *out = fopen(argv[4], "w");
  if (!out) fail("cannot write", argv[4]);
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) fprintf(out, "%f  ", h[(long)i * cols + j]);
    fprintf(out, "\n");
  }
  if (fclose(out) != 0) fail("cannot write", argv[4]);

  struct rusage use;
  getrusage(RUSAGE_SELF, &use);
  double cpu = (use.ru_utime.tv_sec + use.ru_stime.tv_sec) * 1e3 + (use.ru_utime.tv_usec + use.ru_stime.tv_usec) / 1e3;
  fprintf(stderr, "sciddicat: steps=%d sim_wall_ms=%.1f sim_cpu_ms=%.1f cpu_ms=%.1f\n", steps, ms(&wall0, &wall1), ms(&cpu0, &cpu1), cpu);
  return 0;
}
