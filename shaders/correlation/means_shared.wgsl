// Means, shared memory (the study's "shared" kernel): a workgroup per series; its invocations read
// consecutive samples (coalesced) into private sums, then reduce them as a tree in workgroup memory.
// Traffic: as means_naive.
#include "correlation/series"
#include "correlation/reduce"

@group(0) @binding(2) var<storage, read_write> means: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let row = group_id(wid, nwg);
  // Uniform per workgroup: the whole workgroup returns or none of it.
  if (row >= params.rows) {
    return;
  }
  var acc = vec2<f32>(0.0, 0.0);
  for (var k = tid; k < params.n; k += WG) {
    acc = acc_add_sample(acc, sample(row, k));
  }
  let total = reduce_workgroup(tid, acc);
  if (tid == 0u) {
    means[params.row0 + row] = acc_value(total) / f32(params.n);
  }
}
