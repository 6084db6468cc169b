// The study's monolithic kernels: one thread per cell in 16 × 16 workgroups covering the grid,
// three dispatches per step (reset the outflows, compute them, update the thickness).
#include "landslide/sciddica"
#include "landslide/layers"

@compute @workgroup_size(16, 16)
fn reset(@builtin(global_invocation_id) id: vec3<u32>) {
  if (!interior(id.y, id.x)) { return; }
  f[id.y * grid.cols + id.x] = vec4<f32>(0.0);
}

@compute @workgroup_size(16, 16)
fn flows(@builtin(global_invocation_id) id: vec3<u32>) {
  if (!interior(id.y, id.x)) { return; }
  let k = id.y * grid.cols + id.x;
  f[k] = outflows_at(k);
}

@compute @workgroup_size(16, 16)
fn update(@builtin(global_invocation_id) id: vec3<u32>) {
  if (!interior(id.y, id.x)) { return; }
  update_at(id.y * grid.cols + id.x);
}
