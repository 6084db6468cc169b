// Fused: one pass per step. Each thread computes its own cell's outflows and, again, the outflow
// of each neighbour toward it, so no outflow layer is written or read back: the thickness goes from
// one buffer to the other (swapped every step). Five minimizations per cell buy two fewer passes.
// A dry cell among dry neighbours stays dry (a cell with h = 0 gives nothing: m = h − p_ε < 0), so
// it is written without a minimization: most of a landslide's grid is such cells.
#include "landslide/sciddica"

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read> h_in: array<f32>;
@group(0) @binding(3) var<storage, read_write> h_out: array<f32>;
@group(0) @binding(4) var<storage, read> mask: array<u32>;

#include "landslide/cells"

// The outflows of cell (i, j); none from border cells, which the reference never computes.
fn outflows_of(i: u32, j: u32) -> vec4<f32> {
  if (!interior(i, j)) { return vec4<f32>(0.0); }
  let c = grid.cols;
  let k = i * c + j;
  let u = vec4<f32>(z[k - c] + h_in[k - c], z[k - 1u] + h_in[k - 1u], z[k + 1u] + h_in[k + 1u], z[k + c] + h_in[k + c]);
  return outflows(h_in[k], z[k], u, walls_at(k));
}

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.y;
  let j = id.x;
  if (!interior(i, j)) { return; }
  let c = grid.cols;
  let k = i * c + j;
  if (h_in[k] == 0.0 && h_in[k - c] == 0.0 && h_in[k - 1u] == 0.0 && h_in[k + 1u] == 0.0 && h_in[k + c] == 0.0) {
    h_out[k] = 0.0;
    return;
  }
  let inflow = vec4<f32>(outflows_of(i - 1u, j).w, outflows_of(i, j - 1u).z, outflows_of(i, j + 1u).y, outflows_of(i + 1u, j).x);
  h_out[k] = updated(h_in[k], outflows_of(i, j), inflow);
}
