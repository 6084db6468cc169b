// What every shortest-paths kernel shares: the distance matrix (int32, INF = 2^30 − 1 so that two
// add up inside i32), the path keys (hops · 2^16 + first hop, see src/main/workloads/paths/matrix.ts)
// and the dispatch's parameters. A matrix larger than one binding holds is split into bands of
// BAND_ROWS rows, up to four bindings; cells are reached through dGet/dSet and kGet/kSet.

#include "paths/params"

// With successors: among equal distances the smaller key wins.
override PATHS: bool = false;

@group(0) @binding(0) var<storage, read_write> d0: array<i32>;
@group(0) @binding(1) var<storage, read_write> d1: array<i32>;
@group(0) @binding(2) var<storage, read_write> d2: array<i32>;
@group(0) @binding(3) var<storage, read_write> d3: array<i32>;
@group(0) @binding(4) var<storage, read_write> k0: array<u32>;
@group(0) @binding(5) var<storage, read_write> k1: array<u32>;
@group(0) @binding(6) var<storage, read_write> k2: array<u32>;
@group(0) @binding(7) var<storage, read_write> k3: array<u32>;
@group(0) @binding(8) var<uniform> p: Params;

fn dGet(i: u32, j: u32) -> i32 {
  if (BAND_ROWS == ONE_BAND) {
    return d0[i * p.n + j];
  }
  let b = i / BAND_ROWS;
  let at = (i - b * BAND_ROWS) * p.n + j;
  switch b {
    case 0u: { return d0[at]; }
    case 1u: { return d1[at]; }
    case 2u: { return d2[at]; }
    default: { return d3[at]; }
  }
}

fn dSet(i: u32, j: u32, v: i32) {
  if (BAND_ROWS == ONE_BAND) {
    d0[i * p.n + j] = v;
    return;
  }
  let b = i / BAND_ROWS;
  let at = (i - b * BAND_ROWS) * p.n + j;
  switch b {
    case 0u: { d0[at] = v; }
    case 1u: { d1[at] = v; }
    case 2u: { d2[at] = v; }
    default: { d3[at] = v; }
  }
}

fn kGet(i: u32, j: u32) -> u32 {
  if (BAND_ROWS == ONE_BAND) {
    return k0[i * p.n + j];
  }
  let b = i / BAND_ROWS;
  let at = (i - b * BAND_ROWS) * p.n + j;
  switch b {
    case 0u: { return k0[at]; }
    case 1u: { return k1[at]; }
    case 2u: { return k2[at]; }
    default: { return k3[at]; }
  }
}

fn kSet(i: u32, j: u32, v: u32) {
  if (BAND_ROWS == ONE_BAND) {
    k0[i * p.n + j] = v;
    return;
  }
  let b = i / BAND_ROWS;
  let at = (i - b * BAND_ROWS) * p.n + j;
  switch b {
    case 0u: { k0[at] = v; }
    case 1u: { k1[at] = v; }
    case 2u: { k2[at] = v; }
    default: { k3[at] = v; }
  }
}

// The key of i → k → j: key(i, k) plus the hops of k → j, saturated (unreachable keys are all ones).
fn compose(kik: u32, kkj: u32) -> u32 {
  let c = kik + (kkj & 0xffff0000u);
  return select(c, 0xffffffffu, c < kik);
}

// Whether the path (s, c) is better than the current (cur, ck): shorter, or as short with a smaller key.
fn better(s: i32, c: u32, cur: i32, ck: u32) -> bool {
  return s < cur || (s == cur && c < ck);
}
