// What every shortest-paths kernel shares: the distance matrix (int32, row stride p.n, INF =
// 2^30 − 1 so that two add up inside i32), the path keys (hops · 2^16 + first hop, see
// src/main/workloads/paths/matrix.ts) and the dispatch's parameters.

// With successors: among equal distances the smaller key wins.
override PATHS: bool = false;

struct Params {
  // Row stride: the matrix side padded to a multiple of 64.
  n: u32,
  // The k of a per-k dispatch, or the round of a blocked one.
  k: u32,
}

@group(0) @binding(0) var<storage, read_write> d: array<i32>;
@group(0) @binding(1) var<storage, read_write> key: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

// The key of i → k → j: key(i, k) plus the hops of k → j, saturated (unreachable keys are all ones).
fn compose(kik: u32, kkj: u32) -> u32 {
  let c = kik + (kkj & 0xffff0000u);
  return select(c, 0xffffffffu, c < kik);
}

// Whether the path (s, c) is better than the current (cur, ck): shorter, or as short with a smaller key.
fn better(s: i32, c: u32, cur: i32, ck: u32) -> bool {
  return s < cur || (s == cur && c < ck);
}
