// Means, naive (the study's first kernel): one invocation per series walks its n samples. Threads
// of a workgroup read addresses n apart, so the reads do not coalesce.
// Traffic: reads every sample once (4 bytes, 8 under COMP), writes one mean per series.
#include "correlation/series"

@group(0) @binding(2) var<storage, read_write> means: array<f32>;

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row = params.first * WG + gid.x;
  if (row >= params.rows) {
    return;
  }
  var acc = vec2<f32>(0.0, 0.0);
  for (var k = 0u; k < params.n; k++) {
    acc = acc_add_sample(acc, sample(row, k));
  }
  means[params.row0 + row] = acc_value(acc) / f32(params.n);
}
