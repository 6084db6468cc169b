// The f32 layers every three-pass landslide module binds (binding numbers are the host's, see
// src/main/workloads/landslide/gpu/kernels.ts), and σ1 and σ2 of a cell on them; layers_df.wgsl
// is the same in double-float. The passes (monolithic_passes.wgsl, …) are written against either.
#include "landslide/sciddica"

@group(0) @binding(0) var<uniform> grid: Grid;
// Altitude minus the DEM's lowest cell (f32 keeps more of the relief that way).
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read_write> h: array<f32>;
// The four outflows of each cell: north, west, east, south.
@group(0) @binding(3) var<storage, read_write> f: array<vec4<f32>>;
// Wall bits, four cells to a word.
@group(0) @binding(4) var<storage, read> mask: array<u32>;

#include "landslide/cells"

// σ1 for cell k from the layers in memory.
fn outflows_at(k: u32) -> vec4<f32> {
  let c = grid.cols;
  let u = vec4<f32>(z[k - c] + h[k - c], z[k - 1u] + h[k - 1u], z[k + 1u] + h[k + 1u], z[k + c] + h[k + c]);
  return outflows(h[k], z[k], u, walls_at(k));
}

fn has_debris(k: u32) -> bool {
  return h[k] != 0.0;
}

// σ2 for cell k from the outflows in memory.
fn update_at(k: u32) {
  let c = grid.cols;
  h[k] = updated(h[k], f[k], vec4<f32>(f[k - c].w, f[k - 1u].z, f[k + 1u].y, f[k + c].x));
}
