// The study's monolithic kernels: one thread per cell in 16 × 16 workgroups covering the grid,
// three dispatches per step (reset the outflows, compute them, update the thickness). Written
// against the layers of either precision (monolithic.wgsl: f32, monolithic_df.wgsl: double-float).

@compute @workgroup_size(16, 16)
fn reset(@builtin(global_invocation_id) id: vec3<u32>) {
  if (!interior(id.y, id.x)) { return; }
  f[id.y * grid.cols + id.x] = NO_FLOWS;
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
