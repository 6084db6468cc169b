/*
 * Blocked Floyd–Warshall in CUDA (Katz & Kider's three phases; 64 × 64 tiles in shared memory, each
 * thread 4 × 4 cells in registers), as the GPU baseline of `paralab bench headline`'s shortest paths
 * on the same card.
 *
 *   floyd-warshall V [RUNS] [--check]
 *
 * The graph: V vertices, each ordered pair an edge with probability 1/10 (as `bench paths`'s default
 * density, V²/10 edges), weights 1…100, from a fixed hash (seed 1); int32 distances, 0x3fffffff for
 * none, so that a sum of two never overflows. The matrix is padded to a multiple of 64 with
 * unreachable vertices. Blocked Floyd–Warshall does the same V³ relaxations whatever the edges, so
 * its time depends on V alone. Each run starts from the uploaded matrix, after one untimed run,
 * timed by CUDA events. --check also runs the plain O(V³) loop on the CPU and compares every
 * distance (use a small V). On stderr at the end:
 *   floyd-warshall: V=N runs=R median_ms=M min_ms=A max_ms=B checksum=S [check=ok]
 * (the checksum: the sum of every finite distance).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define INF 0x3fffffff
#define B 64

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "floyd-warshall: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) fail(#x, cudaGetErrorString(e_)); } while (0)

static uint64_t mix(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return x;
}

// Phase 1: the pivot tile alone, k by k.
__global__ void phase1(int *d, int n, int r) {
  __shared__ int t[B][B];
  int tx = threadIdx.x, ty = threadIdx.y, base = r * B;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) t[ty * 4 + a][tx * 4 + b] = d[(long)(base + ty * 4 + a) * n + base + tx * 4 + b];
  __syncthreads();
  for (int k = 0; k < B; k++) {
    int v[4][4];
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) v[a][b] = min(t[ty * 4 + a][tx * 4 + b], t[ty * 4 + a][k] + t[k][tx * 4 + b]);
    __syncthreads();
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) t[ty * 4 + a][tx * 4 + b] = v[a][b];
    __syncthreads();
  }
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) d[(long)(base + ty * 4 + a) * n + base + tx * 4 + b] = t[ty * 4 + a][tx * 4 + b];
}

// Phase 2: the tiles of the pivot row (blockIdx.y 0) and column (1), k by k against the pivot tile.
__global__ void phase2(int *d, int n, int r) {
  __shared__ int p[B][B], t[B][B];
  int tx = threadIdx.x, ty = threadIdx.y, base = r * B;
  int other = blockIdx.x >= r ? blockIdx.x + 1 : blockIdx.x; // skip the pivot tile
  bool row = blockIdx.y == 0;
  int ti = row ? base : other * B, tj = row ? other * B : base;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) {
      int i = ty * 4 + a, j = tx * 4 + b;
      p[i][j] = d[(long)(base + i) * n + base + j];
      t[i][j] = d[(long)(ti + i) * n + tj + j];
    }
  __syncthreads();
  for (int k = 0; k < B; k++) {
    int v[4][4];
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        int i = ty * 4 + a, j = tx * 4 + b;
        v[a][b] = min(t[i][j], row ? p[i][k] + t[k][j] : t[i][k] + p[k][j]);
      }
    __syncthreads();
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) t[ty * 4 + a][tx * 4 + b] = v[a][b];
    __syncthreads();
  }
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) d[(long)(ti + ty * 4 + a) * n + tj + tx * 4 + b] = t[ty * 4 + a][tx * 4 + b];
}

// Phase 3: every other tile, a min-plus product of its column-pivot and row-pivot tiles.
__global__ void phase3(int *d, int n, int r) {
  __shared__ int col[B][B + 1], row[B][B];
  int tx = threadIdx.x, ty = threadIdx.y, base = r * B;
  int bi = blockIdx.y, bj = blockIdx.x;
  if (bi == r || bj == r) return;
  int ti = bi * B, tj = bj * B;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) {
      int i = ty * 4 + a, j = tx * 4 + b;
      col[i][j] = d[(long)(ti + i) * n + base + j];
      row[i][j] = d[(long)(base + i) * n + tj + j];
    }
  __syncthreads();
  int v[4][4];
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) v[a][b] = d[(long)(ti + ty * 4 + a) * n + tj + tx * 4 + b];
#pragma unroll 8
  for (int k = 0; k < B; k++) {
    int c[4], w[4];
    for (int a = 0; a < 4; a++) c[a] = col[ty * 4 + a][k];
    for (int b = 0; b < 4; b++) w[b] = row[k][tx * 4 + b];
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) v[a][b] = min(v[a][b], c[a] + w[b]);
  }
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) d[(long)(ti + ty * 4 + a) * n + tj + tx * 4 + b] = v[a][b];
}

int main(int argc, char **argv) {
  if (argc < 2) fail("usage: floyd-warshall V [RUNS] [--check]", NULL);
  int V = atoi(argv[1]);
  int runs = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 5;
  bool check = argc > 2 && !strcmp(argv[argc - 1], "--check");
  if (V < 1 || V > 65536 || runs < 1) fail("V must be in 1…65536 and RUNS ≥ 1", NULL);
  int n = (V + B - 1) / B * B, tiles = n / B;
  std::vector<int> m((size_t)n * n, INF);
  for (int i = 0; i < n; i++) m[(size_t)i * n + i] = 0;
  for (int i = 0; i < V; i++)
    for (int j = 0; j < V; j++) {
      uint64_t x = mix(1ULL * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 65537ULL * 65537ULL + j);
      if (i != j && x % 10 == 0) m[(size_t)i * n + j] = 1 + (int)((x >> 20) % 100);
    }
  int *d, *init;
  CK(cudaMalloc(&d, (size_t)n * n * sizeof(int)));
  CK(cudaMalloc(&init, (size_t)n * n * sizeof(int)));
  CK(cudaMemcpy(init, m.data(), (size_t)n * n * sizeof(int), cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> times;
  dim3 threads(16, 16);
  for (int r0 = 0; r0 <= runs; r0++) { // run 0 is untimed
    CK(cudaMemcpy(d, init, (size_t)n * n * sizeof(int), cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e0));
    for (int r = 0; r < tiles; r++) {
      phase1<<<1, threads>>>(d, n, r);
      if (tiles > 1) phase2<<<dim3(tiles - 1, 2), threads>>>(d, n, r);
      if (tiles > 1) phase3<<<dim3(tiles, tiles), threads>>>(d, n, r);
    }
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r0 > 0) times.push_back(ms);
  }
  std::vector<int> out((size_t)n * n);
  CK(cudaMemcpy(out.data(), d, (size_t)n * n * sizeof(int), cudaMemcpyDeviceToHost));
  uint64_t sum = 0;
  for (int i = 0; i < V; i++)
    for (int j = 0; j < V; j++)
      if (out[(size_t)i * n + j] < INF) sum += (uint64_t)out[(size_t)i * n + j];
  const char *verdict = "";
  if (check) {
    for (int k = 0; k < V; k++)
      for (int i = 0; i < V; i++) {
        int ik = m[(size_t)i * n + k];
        if (ik >= INF) continue;
        for (int j = 0; j < V; j++) m[(size_t)i * n + j] = std::min(m[(size_t)i * n + j], ik + m[(size_t)k * n + j]);
      }
    for (int i = 0; i < V; i++)
      for (int j = 0; j < V; j++)
        if (std::min(m[(size_t)i * n + j], INF) != std::min(out[(size_t)i * n + j], INF)) {
          fprintf(stderr, "floyd-warshall: check FAILED at %d, %d: GPU %d, CPU %d\n", i, j, out[(size_t)i * n + j], m[(size_t)i * n + j]);
          return 1;
        }
    verdict = " check=ok";
  }
  std::sort(times.begin(), times.end());
  size_t c = times.size();
  double med = c % 2 ? times[c / 2] : (times[c / 2 - 1] + times[c / 2]) / 2.0;
  fprintf(stderr, "floyd-warshall: V=%d runs=%d median_ms=%.4f min_ms=%.4f max_ms=%.4f checksum=%llu%s\n", V, runs, med, times[0], times[c - 1], (unsigned long long)sum, verdict);
  return 0;
}
