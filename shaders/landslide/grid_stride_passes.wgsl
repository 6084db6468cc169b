// The study's grid-stride kernels: a fixed number of workgroups whose threads walk the interior
// cells with a stride of every thread launched; three dispatches per step as in monolithic.
// Written against the layers of either precision (grid_stride.wgsl, grid_stride_df.wgsl).

const WG: u32 = 256u;

// Interior cell t (row-major over the interior) as a grid index.
fn cell(t: u32) -> u32 {
  let w = grid.cols - 2u;
  return (1u + t / w) * grid.cols + 1u + t % w;
}

fn inner_cells() -> u32 {
  return (grid.rows - 2u) * (grid.cols - 2u);
}

@compute @workgroup_size(WG)
fn reset(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  for (var t = id.x; t < inner_cells(); t += nwg.x * WG) { f[cell(t)] = NO_FLOWS; }
}

@compute @workgroup_size(WG)
fn flows(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  for (var t = id.x; t < inner_cells(); t += nwg.x * WG) {
    let k = cell(t);
    f[k] = outflows_at(k);
  }
}

@compute @workgroup_size(WG)
fn update(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  for (var t = id.x; t < inner_cells(); t += nwg.x * WG) { update_at(cell(t)); }
}
