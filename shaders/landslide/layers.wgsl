// The layers every three-pass landslide kernel binds (binding numbers are the host's, see
// src/main/workloads/landslide/gpu/layers.ts), and reading them: wall bits, interior cells.

@group(0) @binding(0) var<uniform> grid: Grid;
// Altitude minus the DEM's lowest cell (f32 keeps more of the relief that way).
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read_write> h: array<f32>;
// The four outflows of each cell: north, west, east, south.
@group(0) @binding(3) var<storage, read_write> f: array<vec4<f32>>;
// Wall bits, four cells to a word.
@group(0) @binding(4) var<storage, read> mask: array<u32>;

fn walls_at(k: u32) -> u32 {
  return (mask[k >> 2u] >> ((k & 3u) * 8u)) & 0xffu;
}

// The one-cell border never changes: only interior cells are computed.
fn interior(i: u32, j: u32) -> bool {
  return i >= 1u && j >= 1u && i + 1u < grid.rows && j + 1u < grid.cols;
}

// σ1 for cell k from the layers in memory.
fn outflows_at(k: u32) -> vec4<f32> {
  let c = grid.cols;
  let u = vec4<f32>(z[k - c] + h[k - c], z[k - 1u] + h[k - 1u], z[k + 1u] + h[k + 1u], z[k + c] + h[k + c]);
  return outflows(h[k], z[k], u, walls_at(k));
}

// σ2 for cell k from the outflows in memory.
fn update_at(k: u32) {
  let c = grid.cols;
  h[k] = updated(h[k], f[k], vec4<f32>(f[k - c].w, f[k - 1u].z, f[k + 1u].y, f[k + c].x));
}
