// Blocked Floyd–Warshall with the matrix's block rows spread over several devices
// (src/main/workloads/paths/gpu/bands-solver.ts). This device holds rows part.row0 … of the matrix
// (distances in bindings 0–3, keys in 4–7, by local row, BAND_ROWS rows a binding) and a round's
// pivot block row, 64 × n (9, keys 10). The owner of the pivot's rows copies them there, closes the
// pivot block (pivot_close) and the rest of the row (pivot_row), and every other device receives
// them; each device then relaxes its own blocks of the pivot column (pivot_column) and its other
// blocks (phase3_keys; without successors bands_minplus.wgsl). Every cell goes through the same
// relaxations in the same order as in blocked.wgsl's tuned kernels, so the results are one device's
// bit for bit.
#include "paths/common"

// Rows of invocations of a 64-wide workgroup.
override TY: u32 = 4u;

struct Part {
  // First local row of this dispatch's blocks.
  first: u32,
  // A block row left out: the next round's pivot, relaxed first by its owner; NO_BLOCK for none.
  skip: u32,
  // The global row of this device's local row 0.
  row0: u32,
}

@group(0) @binding(9) var<storage, read_write> pd: array<i32>;
@group(0) @binding(10) var<storage, read_write> pk: array<u32>;
@group(0) @binding(11) var<uniform> part: Part;

const BS: u32 = 64u;
var<workgroup> tileA: array<i32, 4096>;
var<workgroup> tileB: array<i32, 4096>;

fn sync() {
  workgroupBarrier();
  if (PATHS) {
    storageBarrier();
  }
}

// Phase 1 on the pivot block row: block (0, k0) of pd through its own 64 values of k.
@compute @workgroup_size(64, TY)
fn pivot_close(@builtin(local_invocation_id) lid: vec3<u32>) {
  let k0 = p.k * BS;
  let jj = lid.x;
  for (var ii = lid.y; ii < BS; ii += TY) {
    tileB[ii * BS + jj] = pd[ii * p.n + k0 + jj];
  }
  sync();
  for (var kk = 0u; kk < BS; kk++) {
    for (var ii = lid.y; ii < BS; ii += TY) {
      let s = plus(tileB[ii * BS + kk], tileB[kk * BS + jj]);
      let cur = tileB[ii * BS + jj];
      if (PATHS) {
        let c = compose(pk[ii * p.n + k0 + kk], pk[kk * p.n + k0 + jj]);
        if (better(s, c, cur, pk[ii * p.n + k0 + jj])) {
          tileB[ii * BS + jj] = s;
          pk[ii * p.n + k0 + jj] = c;
        }
      } else {
        tileB[ii * BS + jj] = min(cur, s);
      }
    }
    sync();
  }
  for (var ii = lid.y; ii < BS; ii += TY) {
    pd[ii * p.n + k0 + jj] = tileB[ii * BS + jj];
  }
}

// Phase 2 on the pivot block row: block wid.x of it from the closed pivot block (tileA). With
// successors step by step (as blocked.wgsl's phase2), without them as one product (phase2_closed).
@compute @workgroup_size(64, TY)
fn pivot_row(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  if (wid.x == p.k) {
    return;
  }
  let k0 = p.k * BS;
  let c0 = wid.x * BS;
  let jj = lid.x;
  for (var ii = lid.y; ii < BS; ii += TY) {
    tileA[ii * BS + jj] = pd[ii * p.n + k0 + jj];
    tileB[ii * BS + jj] = pd[ii * p.n + c0 + jj];
  }
  sync();
  if (!PATHS) {
    for (var ii = lid.y; ii < BS; ii += TY) {
      var acc = tileB[ii * BS + jj];
      for (var kk = 0u; kk < BS; kk++) {
        acc = min(acc, plus(tileA[ii * BS + kk], tileB[kk * BS + jj]));
      }
      pd[ii * p.n + c0 + jj] = acc;
    }
    return;
  }
  for (var kk = 0u; kk < BS; kk++) {
    for (var ii = lid.y; ii < BS; ii += TY) {
      let s = plus(tileA[ii * BS + kk], tileB[kk * BS + jj]);
      let cur = tileB[ii * BS + jj];
      let c = compose(pk[ii * p.n + k0 + kk], pk[kk * p.n + c0 + jj]);
      if (better(s, c, cur, pk[ii * p.n + c0 + jj])) {
        tileB[ii * BS + jj] = s;
        pk[ii * p.n + c0 + jj] = c;
      }
    }
    sync();
  }
  for (var ii = lid.y; ii < BS; ii += TY) {
    pd[ii * p.n + c0 + jj] = tileB[ii * BS + jj];
  }
}

// Phase 2 on this device's blocks of the pivot column: local block row wid.x (from part.first),
// from the closed pivot block in pd.
@compute @workgroup_size(64, TY)
fn pivot_column(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let r0 = part.first + wid.x * BS;
  if ((part.row0 + r0) / BS == p.k) {
    return;
  }
  let k0 = p.k * BS;
  let jj = lid.x;
  for (var ii = lid.y; ii < BS; ii += TY) {
    tileA[ii * BS + jj] = pd[ii * p.n + k0 + jj];
    tileB[ii * BS + jj] = dGet(r0 + ii, k0 + jj);
  }
  sync();
  if (!PATHS) {
    for (var ii = lid.y; ii < BS; ii += TY) {
      var acc = tileB[ii * BS + jj];
      for (var kk = 0u; kk < BS; kk++) {
        acc = min(acc, plus(tileB[ii * BS + kk], tileA[kk * BS + jj]));
      }
      dSet(r0 + ii, k0 + jj, acc);
    }
    return;
  }
  for (var kk = 0u; kk < BS; kk++) {
    for (var ii = lid.y; ii < BS; ii += TY) {
      let s = plus(tileB[ii * BS + kk], tileA[kk * BS + jj]);
      let cur = tileB[ii * BS + jj];
      let c = compose(kGet(r0 + ii, k0 + kk), pk[kk * p.n + k0 + jj]);
      if (better(s, c, cur, kGet(r0 + ii, k0 + jj))) {
        tileB[ii * BS + jj] = s;
        kSet(r0 + ii, k0 + jj, c);
      }
    }
    sync();
  }
  for (var ii = lid.y; ii < BS; ii += TY) {
    dSet(r0 + ii, k0 + jj, tileB[ii * BS + jj]);
  }
}

// Phase 3 with successors (as blocked.wgsl's phase3_tiled): block (local block row wid.y from
// part.first, column wid.x), 16 × 16 invocations of 4 × 4 cells, A from this device, B from pd.
@compute @workgroup_size(16, 16)
fn phase3_keys(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let r0 = part.first + wid.y * BS;
  let g = (part.row0 + r0) / BS;
  if (g == p.k || g == part.skip || wid.x == p.k) {
    return;
  }
  let k0 = p.k * BS;
  let c0 = wid.x * BS;
  let t = lid.y * 16u + lid.x;
  for (var w = t; w < 4096u; w += 256u) {
    let row = w >> 6u;
    let col = w & 63u;
    tileA[w] = dGet(r0 + row, k0 + col);
    tileB[w] = pd[row * p.n + c0 + col];
  }
  workgroupBarrier();
  var acc: array<array<i32, 4>, 4>;
  var ck: array<array<u32, 4>, 4>;
  for (var a = 0u; a < 4u; a++) {
    for (var b = 0u; b < 4u; b++) {
      acc[a][b] = dGet(r0 + lid.y + 16u * a, c0 + lid.x + 16u * b);
      ck[a][b] = kGet(r0 + lid.y + 16u * a, c0 + lid.x + 16u * b);
    }
  }
  for (var kk = 0u; kk < 64u; kk++) {
    var ak: array<i32, 4>;
    var bk: array<i32, 4>;
    for (var a = 0u; a < 4u; a++) {
      ak[a] = tileA[(lid.y + 16u * a) * 64u + kk];
      bk[a] = tileB[kk * 64u + lid.x + 16u * a];
    }
    for (var a = 0u; a < 4u; a++) {
      for (var b = 0u; b < 4u; b++) {
        let s = plus(ak[a], bk[b]);
        if (s <= acc[a][b]) {
          let c = compose(kGet(r0 + lid.y + 16u * a, k0 + kk), pk[kk * p.n + c0 + lid.x + 16u * b]);
          if (better(s, c, acc[a][b], ck[a][b])) {
            acc[a][b] = s;
            ck[a][b] = c;
          }
        }
      }
    }
  }
  for (var a = 0u; a < 4u; a++) {
    for (var b = 0u; b < 4u; b++) {
      dSet(r0 + lid.y + 16u * a, c0 + lid.x + 16u * b, acc[a][b]);
      kSet(r0 + lid.y + 16u * a, c0 + lid.x + 16u * b, ck[a][b]);
    }
  }
}
