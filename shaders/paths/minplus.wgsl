// Phase 3 of the tuned variant, distances only: round r's min-plus product C = min(C, A ⊗ B) over
// the pivot's 64 values of k (A: the pivot column's blocks, B: the pivot row's), register-blocked as
// a tuned SGEMM. A workgroup of TX × TY invocations owns a tile of TY·TM rows × TX·TN columns (a
// tile may span several 64-blocks: its cells in the pivot's row or column of blocks are phase 2's
// and are neither written nor, by anyone, changed in this phase). An invocation's rows are TM/4
// runs of 4 adjacent rows, TY·4 apart (its columns likewise, TX·4 apart), so that its reads of
// workgroup memory are vec4 and a warp's are broadcasts (A) or consecutive vec4 (B). The tile's
// cells are loaded first (their latency hides behind the staging), A and B are staged KC values of
// k at a time (A transposed as [k][row], 4 rows a vec4; B as [k][column]), and every relaxation is
// acc = min(acc, a + b) on vec4: no branch. INF + INF = 2^31 − 2 stays inside i32.
// Shapes and their limits: src/main/workloads/paths/gpu/tuned-shapes.ts.
#include "paths/params"

@group(0) @binding(0) var<storage, read_write> d0: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read_write> d1: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> d2: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> d3: array<vec4<i32>>;
@group(0) @binding(8) var<uniform> p: Params;

// Columns of a round's pivot block (the blocked kernels' B).
const ROUND_K: u32 = 64u;

override TX: u32 = 16u; // invocations along columns
override TY: u32 = 16u; // invocations along rows
override TM: u32 = 8u; // rows per invocation: 4 or 8
override TN: u32 = 8u; // columns per invocation: 4 or 8
override KC: u32 = 32u; // values of k staged at a time: 4 … 64, dividing 64
override GM: u32 = TY * TM / 4u; // vec4 of A per k: the tile's rows / 4 (a multiple of 8)
override GN: u32 = TX * TN / 4u; // vec4 of B per k: the tile's columns / 4
override A_VEC4: u32 = KC * GM;
override B_VEC4: u32 = KC * GN;

var<workgroup> as4: array<vec4<i32>, A_VEC4>;
var<workgroup> bs4: array<vec4<i32>, B_VEC4>;

// Cells (i, 4·c4 … 4·c4 + 3).
fn get4(i: u32, c4: u32) -> vec4<i32> {
  let n4 = p.n / 4u;
  if (BAND_ROWS == ONE_BAND) {
    return d0[i * n4 + c4];
  }
  let b = i / BAND_ROWS;
  let at = (i - b * BAND_ROWS) * n4 + c4;
  switch b {
    case 0u: { return d0[at]; }
    case 1u: { return d1[at]; }
    case 2u: { return d2[at]; }
    default: { return d3[at]; }
  }
}

fn set4(i: u32, c4: u32, v: vec4<i32>) {
  let n4 = p.n / 4u;
  if (BAND_ROWS == ONE_BAND) {
    d0[i * n4 + c4] = v;
    return;
  }
  let b = i / BAND_ROWS;
  let at = (i - b * BAND_ROWS) * n4 + c4;
  switch b {
    case 0u: { d0[at] = v; }
    case 1u: { d1[at] = v; }
    case 2u: { d2[at] = v; }
    default: { d3[at] = v; }
  }
}

@compute @workgroup_size(TX, TY)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let k0 = p.k * ROUND_K;
  let r0 = wid.y * GM * 4u;
  let c0 = wid.x * GN * 4u;
  // A tile wholly in the pivot's row or column of blocks: phase 2 has done it.
  if ((r0 >= k0 && r0 + GM * 4u <= k0 + ROUND_K) || (c0 >= k0 && c0 + GN * 4u <= k0 + ROUND_K)) {
    return;
  }
  let threads = TX * TY;
  let tm4 = TM / 4u;
  let tn4 = TN / 4u;

  // acc[(4·m + e) · TN/4 + n]: row 4·(lid.y + TY·m) + e, columns 4·(lid.x + TX·n) … + 3 of the tile.
  var acc: array<vec4<i32>, 16>;
  for (var m = 0u; m < tm4; m++) {
    for (var e = 0u; e < 4u; e++) {
      for (var n = 0u; n < tn4; n++) {
        acc[(4u * m + e) * tn4 + n] = get4(r0 + 4u * (lid.y + TY * m) + e, c0 / 4u + lid.x + TX * n);
      }
    }
  }

  let k4s = KC / 4u;
  for (var kc = 0u; kc < ROUND_K; kc += KC) {
    if (kc > 0u) {
      workgroupBarrier(); // the previous stage is read
    }
    // A: unit u is 4 rows (group g) × 4 values of k (k4), read as 4 vec4 along k and stored as 4
    // vec4 along rows. g's low 3 bits vary fastest, so that 8 neighbouring invocations store to
    // 8 consecutive vec4 (no bank conflict); the next 8 read the next vec4 of the same rows.
    for (var u = tid; u < A_VEC4 / 4u; u += threads) {
      let rest = u / 8u;
      let k4 = rest % k4s;
      let g = (rest / k4s) * 8u + u % 8u;
      let row = r0 + 4u * g;
      let col4 = (k0 + kc) / 4u + k4;
      let v0 = get4(row, col4);
      let v1 = get4(row + 1u, col4);
      let v2 = get4(row + 2u, col4);
      let v3 = get4(row + 3u, col4);
      let at = 4u * k4 * GM + g;
      as4[at] = vec4<i32>(v0.x, v1.x, v2.x, v3.x);
      as4[at + GM] = vec4<i32>(v0.y, v1.y, v2.y, v3.y);
      as4[at + 2u * GM] = vec4<i32>(v0.z, v1.z, v2.z, v3.z);
      as4[at + 3u * GM] = vec4<i32>(v0.w, v1.w, v2.w, v3.w);
    }
    // B: rows k0 + kc … of the tile's columns, as they lie.
    for (var u = tid; u < B_VEC4; u += threads) {
      bs4[u] = get4(k0 + kc + u / GN, c0 / 4u + u % GN);
    }
    workgroupBarrier();

    for (var k = 0u; k < KC; k++) {
      var a: array<vec4<i32>, 2>;
      var b: array<vec4<i32>, 2>;
      for (var m = 0u; m < tm4; m++) {
        a[m] = as4[k * GM + lid.y + TY * m];
      }
      for (var n = 0u; n < tn4; n++) {
        b[n] = bs4[k * GN + lid.x + TX * n];
      }
      for (var m = 0u; m < tm4; m++) {
        for (var e = 0u; e < 4u; e++) {
          let x = vec4<i32>(a[m][e]);
          for (var n = 0u; n < tn4; n++) {
            let i = (4u * m + e) * tn4 + n;
            acc[i] = min(acc[i], x + b[n]);
          }
        }
      }
    }
  }

  for (var m = 0u; m < tm4; m++) {
    for (var e = 0u; e < 4u; e++) {
      let row = r0 + 4u * (lid.y + TY * m) + e;
      let rowInPivot = row - k0 < ROUND_K; // wraps above k0's rows when row < k0
      for (var n = 0u; n < tn4; n++) {
        let c4 = c0 / 4u + lid.x + TX * n;
        if (!rowInPivot && 4u * c4 - k0 >= ROUND_K) {
          set4(row, c4, acc[(4u * m + e) * tn4 + n]);
        }
      }
    }
  }
}
