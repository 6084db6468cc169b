// Phase 3 of the tuned variant, distances only: round r's min-plus product C = min(C, A ⊗ B) over
// the pivot's 64 values of k (A: the pivot column's blocks, B: the pivot row's). A workgroup of
// TX × TY invocations owns a tile of 4·TY rows × 4·TX columns (32 or 64 each, so that it lies in one
// 64-block), each invocation the 4 × 4 cells at rows 4·lid.y …, columns 4·lid.x ….
// A and B are staged KC values of k at a time (A transposed as [k][4 rows a vec4], B as
// [k][4 columns a vec4]), so that each k reads one vec4 of each for 16 relaxations
// acc = min(acc, a + b), with no branch. INF + INF = 2^31 − 2 stays inside i32.
// Why this form: on the H100 and H200 these 4 × 4 cells in four named vec4 ran phase 3 at 10–11 T
// relax/s with KC = 16; 8 × 8 cells per invocation, or accumulators in an array indexed by loops,
// at a third of that or less (docs/benchmarks.md).
// Shapes and their limits: src/main/workloads/paths/gpu/tuned-shapes.ts.
#include "paths/params"

@group(0) @binding(0) var<storage, read_write> d0: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read_write> d1: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> d2: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> d3: array<vec4<i32>>;
@group(0) @binding(8) var<uniform> p: Params;

// Columns of a round's pivot block (the blocked kernels' B).
const ROUND_K: u32 = 64u;

override TX: u32 = 16u; // invocations along columns: the tile's columns / 4
override TY: u32 = 16u; // invocations along rows: the tile's rows / 4 (a multiple of 8)
override KC: u32 = 16u; // values of k staged at a time: 4 … 64, dividing 64

var<workgroup> as4: array<vec4<i32>, KC * TY>;
var<workgroup> bs4: array<vec4<i32>, KC * TX>;

// A matrix in bands (BAND_ROWS) takes one dispatch per band of tiles, each with its own pipeline:
// the tiles' rows (C and A) lie in band TILE_BAND and the pivot's rows (B) in band PIVOT_BAND, so
// that every access names its binding at compile time (choosing one per access at run time made
// phase 3 a quarter slower on an H200).
override TILE_BAND: u32 = 0u;
override PIVOT_BAND: u32 = 0u;

// Vec4 `at` of band b.
fn load4(b: u32, at: u32) -> vec4<i32> {
  switch b {
    case 0u: { return d0[at]; }
    case 1u: { return d1[at]; }
    case 2u: { return d2[at]; }
    default: { return d3[at]; }
  }
}

// The vec4 of cells (i, 4·c4 … 4·c4 + 3): i a row of this dispatch's tiles, or of the pivot.
fn tile4(i: u32, c4: u32) -> u32 {
  return (i - TILE_BAND * BAND_ROWS) * (p.n / 4u) + c4;
}

fn pivot4(i: u32, c4: u32) -> u32 {
  return (i - PIVOT_BAND * BAND_ROWS) * (p.n / 4u) + c4;
}

fn store4(at: u32, v: vec4<i32>) {
  switch TILE_BAND {
    case 0u: { d0[at] = v; }
    case 1u: { d1[at] = v; }
    case 2u: { d2[at] = v; }
    default: { d3[at] = v; }
  }
}

@compute @workgroup_size(TX, TY)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let k0 = p.k * ROUND_K;
  let r0 = TILE_BAND * BAND_ROWS + wid.y * TY * 4u; // TILE_BAND is 0 with one band
  let c0 = wid.x * TX * 4u;
  // A tile in the pivot's row or column of blocks: phase 2 has done it.
  if (r0 / ROUND_K == p.k || c0 / ROUND_K == p.k) {
    return;
  }
  // The invocation's first row and its column of vec4.
  let row = r0 + 4u * lid.y;
  let col4 = c0 / 4u + lid.x;
  var acc0 = load4(TILE_BAND, tile4(row, col4));
  var acc1 = load4(TILE_BAND, tile4(row + 1u, col4));
  var acc2 = load4(TILE_BAND, tile4(row + 2u, col4));
  var acc3 = load4(TILE_BAND, tile4(row + 3u, col4));

  let k4s = KC / 4u;
  for (var kc = 0u; kc < ROUND_K; kc += KC) {
    if (kc > 0u) {
      workgroupBarrier(); // the previous stage is read
    }
    // A: unit u is 4 rows (group g) × 4 values of k (k4), read as 4 vec4 along k and stored as 4
    // vec4 along rows. g's low 3 bits vary fastest, so that 8 neighbouring invocations store to
    // 8 consecutive vec4 (no bank conflict); the next 8 read the next vec4 of the same rows.
    for (var u = tid; u < KC * TY / 4u; u += TX * TY) {
      let rest = u / 8u;
      let k4 = rest % k4s;
      let g = (rest / k4s) * 8u + u % 8u;
      let r = r0 + 4u * g;
      let c = (k0 + kc) / 4u + k4;
      let v0 = load4(TILE_BAND, tile4(r, c));
      let v1 = load4(TILE_BAND, tile4(r + 1u, c));
      let v2 = load4(TILE_BAND, tile4(r + 2u, c));
      let v3 = load4(TILE_BAND, tile4(r + 3u, c));
      let at = 4u * k4 * TY + g;
      as4[at] = vec4<i32>(v0.x, v1.x, v2.x, v3.x);
      as4[at + TY] = vec4<i32>(v0.y, v1.y, v2.y, v3.y);
      as4[at + 2u * TY] = vec4<i32>(v0.z, v1.z, v2.z, v3.z);
      as4[at + 3u * TY] = vec4<i32>(v0.w, v1.w, v2.w, v3.w);
    }
    // B: rows k0 + kc … of the tile's columns, as they lie.
    for (var u = tid; u < KC * TX; u += TX * TY) {
      bs4[u] = load4(PIVOT_BAND, pivot4(k0 + kc + u / TX, c0 / 4u + u % TX));
    }
    workgroupBarrier();

    for (var k = 0u; k < KC; k++) {
      let a = as4[k * TY + lid.y];
      let b = bs4[k * TX + lid.x];
      acc0 = min(acc0, plus4(vec4<i32>(a.x), b));
      acc1 = min(acc1, plus4(vec4<i32>(a.y), b));
      acc2 = min(acc2, plus4(vec4<i32>(a.z), b));
      acc3 = min(acc3, plus4(vec4<i32>(a.w), b));
    }
  }

  store4(tile4(row, col4), acc0);
  store4(tile4(row + 1u, col4), acc1);
  store4(tile4(row + 2u, col4), acc2);
  store4(tile4(row + 3u, col4), acc3);
}
