enable subgroups;
// Means with subgroup operations: a workgroup per series; each subgroup sums its invocations'
// partial sums without workgroup memory (subgroupAdd; under COMP a butterfly of shuffles that keeps
// the compensation), then one invocation adds the subgroups' sums.
// Traffic: as means_naive.
#include "correlation/series"

@group(0) @binding(2) var<storage, read_write> means: array<f32>;

const WG: u32 = 256u;
var<workgroup> sums: array<vec2<f32>, WG>;

fn subgroup_sum(acc: vec2<f32>, size: u32) -> vec2<f32> {
  if (COMP) {
    var a = acc;
    for (var offset = size / 2u; offset > 0u; offset = offset / 2u) {
      a = acc_merge(a, subgroupShuffleXor(a, offset));
    }
    return a;
  }
  return vec2<f32>(subgroupAdd(acc.x), 0.0);
}

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) tid: u32,
  @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_size) size: u32,
) {
  let row = group_id(wid, nwg);
  if (row >= params.rows) {
    return;
  }
  var acc = vec2<f32>(0.0, 0.0);
  for (var k = tid; k < params.n; k += WG) {
    acc = acc_add_sample(acc, sample(row, k));
  }
  let total = subgroup_sum(acc, size);
  // Each subgroup's sum in the slot of its first invocation (WebGPU does not say which local
  // indices a subgroup holds, so no slot is assumed); the other slots hold zero.
  sums[tid] = select(vec2<f32>(0.0, 0.0), total, lane == 0u);
  workgroupBarrier();
  // Every subgroup adds up the slots; invocation 0 writes its answer.
  var all = vec2<f32>(0.0, 0.0);
  for (var j = lane; j < WG; j += size) {
    all = acc_merge(all, sums[j]);
  }
  let mean = acc_value(subgroup_sum(all, size)) / f32(params.n);
  if (tid == 0u) {
    means[params.row0 + row] = mean;
  }
}
