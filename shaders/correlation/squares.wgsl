// Step 3: a workgroup per series centres it, d = x − x̄ rounded once to f32 (under COMP from the
// hi and lo words, so d keeps f32 precision however large the mean), writes d zero-padded to the
// stride k, and sums d² (compensated under COMP) for the norm √Σd², 0 for a constant series.
// Traffic: reads every sample and its mean, writes d (4 bytes a sample) and one norm per series.
#include "correlation/series"
#include "correlation/reduce"

@group(0) @binding(2) var<storage, read> means: array<f32>;
@group(0) @binding(4) var<storage, read_write> d: array<f32>;
@group(0) @binding(5) var<storage, read_write> norms: array<f32>;
@group(0) @binding(6) var<storage, read> constant: array<u32>;

fn centred(x: vec2<f32>, mean: f32) -> f32 {
  if (COMP) {
    let t = two_sum(x.x, -mean);
    return t.x + (t.y + x.y);
  }
  return x.x - mean;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let row = group_id(wid, nwg);
  if (row >= params.rows) {
    return;
  }
  let mean = means[params.row0 + row];
  var acc = vec2<f32>(0.0, 0.0);
  for (var k = tid; k < params.k; k += WG) {
    var v = 0.0;
    if (k < params.n) {
      v = centred(sample(row, k), mean);
    }
    d[row * params.k + k] = v;
    acc = acc_add(acc, v * v);
  }
  let total = reduce_workgroup(tid, acc);
  if (tid == 0u) {
    var norm = sqrt(acc_value(total));
    if (constant[params.row0 + row] != 0u) {
      norm = 0.0;
    }
    norms[params.row0 + row] = norm;
  }
}
