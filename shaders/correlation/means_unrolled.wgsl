// Means, unrolled (the study's optimised "intense" kernel): a workgroup per series; each invocation
// keeps four independent sums over four samples per trip (more loads in flight), and the tree
// reduction is written out step by step, the last steps without a loop.
// Traffic: as means_naive.
#include "correlation/series"

@group(0) @binding(2) var<storage, read_write> means: array<f32>;

const WG: u32 = 256u;
var<workgroup> partials: array<vec2<f32>, WG>;

fn fold(tid: u32, step: u32) {
  if (tid < step) {
    partials[tid] = acc_merge(partials[tid], partials[tid + step]);
  }
  workgroupBarrier();
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let row = group_id(wid, nwg);
  if (row >= params.rows) {
    return;
  }
  let n = params.n;
  var a0 = vec2<f32>(0.0, 0.0);
  var a1 = vec2<f32>(0.0, 0.0);
  var a2 = vec2<f32>(0.0, 0.0);
  var a3 = vec2<f32>(0.0, 0.0);
  var k = tid;
  for (; k + 3u * WG < n; k += 4u * WG) {
    a0 = acc_add_sample(a0, sample(row, k));
    a1 = acc_add_sample(a1, sample(row, k + WG));
    a2 = acc_add_sample(a2, sample(row, k + 2u * WG));
    a3 = acc_add_sample(a3, sample(row, k + 3u * WG));
  }
  for (; k < n; k += WG) {
    a0 = acc_add_sample(a0, sample(row, k));
  }
  partials[tid] = acc_merge(acc_merge(a0, a1), acc_merge(a2, a3));
  workgroupBarrier();
  fold(tid, 128u);
  fold(tid, 64u);
  fold(tid, 32u);
  fold(tid, 16u);
  fold(tid, 8u);
  fold(tid, 4u);
  fold(tid, 2u);
  fold(tid, 1u);
  if (tid == 0u) {
    means[params.row0 + row] = acc_value(partials[0]) / f32(params.n);
  }
}
