// Three-phase blocked Floyd–Warshall in workgroup memory: the study's steps from `shared` on.
// Round r (p.k): phase1 takes the pivot block (r, r) through its own B values of k; phase2 the
// blocks of row r and column r, which read the pivot; phase3 every other block, which reads its
// row's and its column's. A workgroup of B × TY invocations owns a block, each invocation the
// cells (lid.y + a·TY, lid.x); phase3_tiled (the tuned step with successors) gives each of 16 × 16
// invocations a 4 × 4 tile of a 64-block, kept in registers through the B values of k.
// Path keys stay in global memory: blocks being read do not change during their phase.
#include "paths/common"

override B: u32 = 32;
override TY: u32 = 8;
// B · B: the words of one block in workgroup memory.
override BB: u32 = 1024;
// The study's `min` step: no branch in the relaxation.
override BRANCHLESS: bool = false;

var<workgroup> tileA: array<i32, BB>;
var<workgroup> tileB: array<i32, BB>;

fn relaxed(cur: i32, s: i32) -> i32 {
  if (BRANCHLESS) {
    return min(cur, s);
  }
  var out = cur;
  if (s < cur) {
    out = s;
  }
  return out;
}

// Block (row0, col0) of the matrix into tileA or tileB, and tileB back.
fn loadA(row0: u32, col0: u32, lid: vec3<u32>) {
  for (var ii = lid.y; ii < B; ii += TY) {
    tileA[ii * B + lid.x] = dGet(row0 + ii, col0 + lid.x);
  }
}

fn loadB(row0: u32, col0: u32, lid: vec3<u32>) {
  for (var ii = lid.y; ii < B; ii += TY) {
    tileB[ii * B + lid.x] = dGet(row0 + ii, col0 + lid.x);
  }
}

fn storeB(row0: u32, col0: u32, lid: vec3<u32>) {
  for (var ii = lid.y; ii < B; ii += TY) {
    dSet(row0 + ii, col0 + lid.x, tileB[ii * B + lid.x]);
  }
}

// One step kk of a block that reads itself (tileB, at row0, col0) through k = k0 + kk: the (i, k)
// values come from itself or from the pivot (tileA), and so do the (k, j) values.
fn selfStep(kk: u32, r0: u32, c0: u32, k0: u32, lid: vec3<u32>, rowIsOwn: bool, colIsOwn: bool) {
  let jj = lid.x;
  for (var ii = lid.y; ii < B; ii += TY) {
    var dik: i32;
    var dkj: i32;
    if (rowIsOwn) { dik = tileB[ii * B + kk]; } else { dik = tileA[ii * B + kk]; }
    if (colIsOwn) { dkj = tileB[kk * B + jj]; } else { dkj = tileA[kk * B + jj]; }
    let s = plus(dik, dkj);
    let cur = tileB[ii * B + jj];
    if (PATHS) {
      let c = compose(kGet(r0 + ii, k0 + kk), kGet(k0 + kk, c0 + jj));
      if (better(s, c, cur, kGet(r0 + ii, c0 + jj))) {
        tileB[ii * B + jj] = s;
        kSet(r0 + ii, c0 + jj, c);
      }
    } else {
      tileB[ii * B + jj] = relaxed(cur, s);
    }
  }
}

fn barriers() {
  workgroupBarrier();
  if (PATHS) {
    storageBarrier();
  }
}

@compute @workgroup_size(B, TY)
fn phase1(@builtin(local_invocation_id) lid: vec3<u32>) {
  let k0 = p.k * B;
  loadB(k0, k0, lid);
  barriers();
  for (var kk = 0u; kk < B; kk++) {
    selfStep(kk, k0, k0, k0, lid, true, true);
    barriers();
  }
  storeB(k0, k0, lid);
}

// wid.y = 0: block (r, wid.x) of the pivot's row; 1: block (wid.x, r) of its column.
@compute @workgroup_size(B, TY)
fn phase2(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let r = p.k;
  if (wid.x == r) {
    return;
  }
  let k0 = r * B;
  let inRow = wid.y == 0u;
  var r0 = wid.x * B;
  var c0 = k0;
  if (inRow) {
    r0 = k0;
    c0 = wid.x * B;
  }
  loadA(k0, k0, lid);
  loadB(r0, c0, lid);
  barriers();
  for (var kk = 0u; kk < B; kk++) {
    // In the pivot's row a block reads the pivot for (i, k) and itself for (k, j); in its column the reverse.
    selfStep(kk, r0, c0, k0, lid, !inRow, inRow);
    barriers();
  }
  storeB(r0, c0, lid);
}

// The tuned phase 2, distances only: after phase 1 the pivot block P is closed, so a block of the
// pivot's row becomes min over k of P(i, k) + self(k, j) in one product (a shortest path from a pivot
// vertex leaves the pivot's vertices for the last time at some k; P(i, i) = 0 keeps self(i, j)), and
// a block of its column self(i, k) + P(k, j) (it enters them first at k). No step waits for another.
@compute @workgroup_size(B, TY)
fn phase2_closed(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let r = p.k;
  if (wid.x == r) {
    return;
  }
  let k0 = r * B;
  let inRow = wid.y == 0u;
  var r0 = wid.x * B;
  var c0 = k0;
  if (inRow) {
    r0 = k0;
    c0 = wid.x * B;
  }
  loadA(k0, k0, lid);
  loadB(r0, c0, lid);
  workgroupBarrier();
  let jj = lid.x;
  for (var ii = lid.y; ii < B; ii += TY) {
    var acc = tileB[ii * B + jj];
    if (inRow) {
      for (var kk = 0u; kk < B; kk++) {
        acc = min(acc, plus(tileA[ii * B + kk], tileB[kk * B + jj]));
      }
    } else {
      for (var kk = 0u; kk < B; kk++) {
        acc = min(acc, plus(tileB[ii * B + kk], tileA[kk * B + jj]));
      }
    }
    dSet(r0 + ii, c0 + jj, acc);
  }
}

@compute @workgroup_size(B, TY)
fn phase3(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let r = p.k;
  if (wid.x == r || wid.y == r) {
    return;
  }
  let k0 = r * B;
  let r0 = wid.y * B;
  let c0 = wid.x * B;
  loadA(r0, k0, lid);
  loadB(k0, c0, lid);
  workgroupBarrier();
  let jj = lid.x;
  for (var ii = lid.y; ii < B; ii += TY) {
    var acc = dGet(r0 + ii, c0 + jj);
    if (PATHS) {
      var ck = kGet(r0 + ii, c0 + jj);
      for (var kk = 0u; kk < B; kk++) {
        let s = plus(tileA[ii * B + kk], tileB[kk * B + jj]);
        if (s <= acc) {
          let c = compose(kGet(r0 + ii, k0 + kk), kGet(k0 + kk, c0 + jj));
          if (better(s, c, acc, ck)) {
            acc = s;
            ck = c;
          }
        }
      }
      kSet(r0 + ii, c0 + jj, ck);
    } else {
      for (var kk = 0u; kk < B; kk++) {
        acc = relaxed(acc, plus(tileA[ii * B + kk], tileB[kk * B + jj]));
      }
    }
    dSet(r0 + ii, c0 + jj, acc);
  }
}

// The tuned phase 3 with successors (B = 64, 16 × 16 invocations; without them minplus.wgsl): a
// 4 × 4 tile per invocation, rows ty + 16a and columns tx + 16b, so that each k reads 4 + 4 words of
// workgroup memory for 16 relaxations.
@compute @workgroup_size(16, 16)
fn phase3_tiled(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let r = p.k;
  if (wid.x == r || wid.y == r) {
    return;
  }
  let k0 = r * 64u;
  let r0 = wid.y * 64u;
  let c0 = wid.x * 64u;
  let t = lid.y * 16u + lid.x;
  for (var w = t; w < 4096u; w += 256u) {
    let row = w >> 6u;
    let col = w & 63u;
    tileA[w] = dGet(r0 + row, k0 + col);
    tileB[w] = dGet(k0 + row, c0 + col);
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
          let c = compose(kGet(r0 + lid.y + 16u * a, k0 + kk), kGet(k0 + kk, c0 + lid.x + 16u * b));
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
