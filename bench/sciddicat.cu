/*
 * SciddicaT in CUDA: bench/sciddicat.c's rules, one thread a cell, as the GPU baseline of
 * `paralab bench headline` on the same card.
 *
 *   sciddicat-cuda HEADER DEM SOURCE OUTPUT STEPS [f64|f32] [RUNS]
 *
 * Files and OUTPUT as sciddicat.c's. Two kernels a step (outflows, then thickness; the outflows of a
 * wall or border cell stay 0, so no reset sweep is needed), launched from a CUDA graph of 100 steps.
 * Built with -fmad=false, the f64 output has sciddicat.c's md5. Each run starts from the initial
 * grids on the device, after one untimed run; the steps are timed by CUDA events.
 * On stderr at the end:
 *   sciddicat-cuda: precision=P steps=N runs=R median_ms=M min_ms=A max_ms=B
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define WALL_SELF 32

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "sciddicat-cuda: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) fail(#x, cudaGetErrorString(e_)); } while (0)

static int rows, cols, has_nodata;
static double nodata;

static void read_header(const char *path) {
  FILE *f = fopen(path, "r");
  char key[64];
  double value;
  if (!f) fail("cannot open", path);
  while (fscanf(f, "%63s %lf", key, &value) == 2) {
    if (!strcasecmp(key, "ncols")) cols = (int)value;
    else if (!strcasecmp(key, "nrows")) rows = (int)value;
    else if (!strcasecmp(key, "NODATA_value")) has_nodata = 1, nodata = value;
  }
  fclose(f);
  if (rows < 3 || cols < 3) fail("no ncols and nrows of at least 3 in", path);
}

static void read_grid(const char *path, std::vector<double> &v) {
  FILE *f = fopen(path, "r");
  if (!f) fail("cannot open", path);
  for (size_t k = 0; k < v.size(); k++)
    if (fscanf(f, "%lf", &v[k]) != 1) fail("too few values in", path);
  fclose(f);
}

template <typename T>
__global__ void outflows(int rows, int cols, const T *__restrict__ z, const T *__restrict__ h, const unsigned char *__restrict__ mask, T *__restrict__ f) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= rows - 1 || j >= cols - 1) return;
  long n = (long)rows * cols, k = (long)i * cols + j;
  unsigned char m0 = mask[k];
  if (m0 & WALL_SELF) return; // its outflows stay 0
  long nb[5] = {k, k - cols, k - 1, k + 1, k + cols};
  T u[5];
  bool eliminated[5];
  T m = h[k] - (T)0.001;
  u[0] = z[k] + (T)0.001;
  for (int d = 1; d < 5; d++) u[d] = z[nb[d]] + h[nb[d]];
  for (int d = 0; d < 5; d++) eliminated[d] = (m0 >> d) & 1;
  T average;
  bool again;
  do {
    again = false;
    average = m;
    int count = 0;
    for (int d = 0; d < 5; d++)
      if (!eliminated[d]) average += u[d], count++;
    if (count != 0) average /= count;
    for (int d = 0; d < 5; d++)
      if (!eliminated[d] && average <= u[d]) eliminated[d] = true, again = true;
  } while (again);
  for (int d = 1; d < 5; d++) f[(d - 1) * n + k] = eliminated[d] ? (T)0 : (average - u[d]) * (T)0.5;
}

template <typename T>
__global__ void thickness(int rows, int cols, T *__restrict__ h, const T *__restrict__ f) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= rows - 1 || j >= cols - 1) return;
  long n = (long)rows * cols, k = (long)i * cols + j;
  long nb[5] = {k, k - cols, k - 1, k + 1, k + cols};
  T next = h[k];
  for (int d = 1; d < 5; d++) next += f[(3 - (d - 1)) * n + nb[d]] - f[(d - 1) * n + k];
  h[k] = next;
}

template <typename T>
static int run(const char *outPath, int steps, int runs, const std::vector<double> &z0, const std::vector<double> &h0, const std::vector<unsigned char> &mask, const char *name) {
  long n = (long)rows * cols;
  std::vector<T> zt(n), ht(n);
  for (long k = 0; k < n; k++) zt[k] = (T)z0[k], ht[k] = (T)h0[k];
  T *z, *h, *hInit, *f;
  unsigned char *m;
  CK(cudaMalloc(&z, n * sizeof(T)));
  CK(cudaMalloc(&h, n * sizeof(T)));
  CK(cudaMalloc(&hInit, n * sizeof(T)));
  CK(cudaMalloc(&f, 4 * n * sizeof(T)));
  CK(cudaMalloc(&m, n));
  CK(cudaMemcpy(z, zt.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(hInit, ht.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(m, mask.data(), n, cudaMemcpyHostToDevice));
  dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  const int chunk = 100;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int t = 0; t < chunk; t++) {
    outflows<T><<<grid, block, 0, s>>>(rows, cols, z, h, m, f);
    thickness<T><<<grid, block, 0, s>>>(rows, cols, h, f);
  }
  CK(cudaStreamEndCapture(s, &graph));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> times;
  for (int r = 0; r <= runs; r++) { // run 0 is untimed
    CK(cudaMemcpyAsync(h, hInit, n * sizeof(T), cudaMemcpyDeviceToDevice, s));
    CK(cudaMemsetAsync(f, 0, 4 * n * sizeof(T), s));
    CK(cudaEventRecord(e0, s));
    int t = 0;
    for (; t + chunk <= steps; t += chunk) CK(cudaGraphLaunch(exec, s));
    for (; t < steps; t++) {
      outflows<T><<<grid, block, 0, s>>>(rows, cols, z, h, m, f);
      thickness<T><<<grid, block, 0, s>>>(rows, cols, h, f);
    }
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r > 0) times.push_back(ms);
  }
  CK(cudaMemcpy(ht.data(), h, n * sizeof(T), cudaMemcpyDeviceToHost));
  FILE *out = fopen(outPath, "w");
  if (!out) fail("cannot write", outPath);
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) fprintf(out, "%f  ", (double)ht[(long)i * cols + j]);
    fprintf(out, "\n");
  }
  if (fclose(out) != 0) fail("cannot write", outPath);
  std::vector<float> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  size_t c = sorted.size();
  double med = c % 2 ? sorted[c / 2] : (sorted[c / 2 - 1] + sorted[c / 2]) / 2.0;
  fprintf(stderr, "sciddicat-cuda: precision=%s steps=%d runs=%d median_ms=%.4f min_ms=%.4f max_ms=%.4f\n", name, steps, runs, med, sorted[0], sorted[c - 1]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 6 || argc > 8) fail("usage: sciddicat-cuda HEADER DEM SOURCE OUTPUT STEPS [f64|f32] [RUNS]", NULL);
  int steps = atoi(argv[5]);
  const char *precision = argc > 6 ? argv[6] : "f64";
  int runs = argc > 7 ? atoi(argv[7]) : 5;
  if (steps < 0 || runs < 1) fail("STEPS must be ≥ 0 and RUNS ≥ 1", NULL);
  read_header(argv[1]);
  long n = (long)rows * cols;
  std::vector<double> z(n), h(n);
  std::vector<unsigned char> mask(n, 0);
  read_grid(argv[2], z);
  read_grid(argv[3], h);
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
  if (!strcmp(precision, "f64")) return run<double>(argv[4], steps, runs, z, h, mask, "f64");
  if (!strcmp(precision, "f32")) return run<float>(argv[4], steps, runs, z, h, mask, "f32");
  fail("precision must be f64 or f32, got", precision);
  return 1;
}
