// The study's tiled kernels without halo: each 16 × 16 workgroup copies only its own tile into
// workgroup memory; neighbours beyond the tile's edge are read from the layers in memory.
#include "landslide/layers"

const T: u32 = 16u;

var<workgroup> tile_u: array<f32, 256>;
var<workgroup> tile_f: array<vec4<f32>, 256>;

@compute @workgroup_size(16, 16)
fn reset(@builtin(global_invocation_id) id: vec3<u32>) {
  if (!interior(id.y, id.x)) { return; }
  f[id.y * grid.cols + id.x] = vec4<f32>(0.0);
}

@compute @workgroup_size(16, 16)
fn flows(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.y;
  let j = id.x;
  let inside = i < grid.rows && j < grid.cols;
  let k = i * grid.cols + j;
  let q = lid.y * T + lid.x;
  tile_u[q] = select(0.0, z[min(k, grid.n - 1u)] + h[min(k, grid.n - 1u)], inside);
  workgroupBarrier();
  if (!interior(i, j)) { return; }
  let c = grid.cols;
  var u: vec4<f32>;
  if (lid.y > 0u) { u.x = tile_u[q - T]; } else { u.x = z[k - c] + h[k - c]; }
  if (lid.x > 0u) { u.y = tile_u[q - 1u]; } else { u.y = z[k - 1u] + h[k - 1u]; }
  if (lid.x + 1u < T) { u.z = tile_u[q + 1u]; } else { u.z = z[k + 1u] + h[k + 1u]; }
  if (lid.y + 1u < T) { u.w = tile_u[q + T]; } else { u.w = z[k + c] + h[k + c]; }
  f[k] = outflows(h[k], z[k], u, walls_at(k));
}

@compute @workgroup_size(16, 16)
fn update(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.y;
  let j = id.x;
  let inside = i < grid.rows && j < grid.cols;
  let k = i * grid.cols + j;
  let q = lid.y * T + lid.x;
  tile_f[q] = select(vec4<f32>(0.0), f[min(k, grid.n - 1u)], inside);
  workgroupBarrier();
  if (!interior(i, j)) { return; }
  let c = grid.cols;
  var inflow: vec4<f32>;
  if (lid.y > 0u) { inflow.x = tile_f[q - T].w; } else { inflow.x = f[k - c].w; }
  if (lid.x > 0u) { inflow.y = tile_f[q - 1u].z; } else { inflow.y = f[k - 1u].z; }
  if (lid.x + 1u < T) { inflow.z = tile_f[q + 1u].y; } else { inflow.z = f[k + 1u].y; }
  if (lid.y + 1u < T) { inflow.w = tile_f[q + T].x; } else { inflow.w = f[k + c].x; }
  h[k] = updated(h[k], tile_f[q], inflow);
}
