// Step 5 over one output tile, in place: r = Σd_i d_j / |d_i| / |d_j| (as numpy divides), clipped to
// [−1, 1]; 1 on the diagonal; NaN with a constant series (norm 0). On a diagonal tile only the
// upper triangle is written, the rest is left for the host to mirror.
// FLOP: 2 per output. Traffic: 4 bytes read and written per output, two norms.
#include "correlation/common"

@group(0) @binding(0) var<storage, read_write> c: array<f32>;
@group(0) @binding(1) var<storage, read> norms: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = params.first * 16u + gid.y; // first: in rows of workgroups
  let j = gid.x;
  if (i >= params.rows || j >= params.rows_j || (params.diag == 1u && i > j)) {
    return;
  }
  let ni = norms[params.row0 + i];
  let nj = norms[params.row0_j + j];
  let at = i * params.stride_c + j;
  if (ni == 0.0 || nj == 0.0) {
    c[at] = nan(params._pad0);
  } else if (params.diag == 1u && i == j) {
    c[at] = 1.0;
  } else {
    c[at] = clamp(c[at] / ni / nj, -1.0, 1.0);
  }
}
