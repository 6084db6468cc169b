// Fused in double-float (--precision accurate): fused.wgsl's one pass per step, each thread
// computing its own cell's outflows and each neighbour's toward it, on vec2(hi, lo) values; dry
// cells, whose outflows are 0, cost five loads instead of a minimization.
#include "landslide/sciddica_df"

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read> z: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> h_in: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> h_out: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> mask: array<u32>;

#include "landslide/cells"

// The outflows of cell (i, j); none from border cells, which the reference never computes.
fn outflows_of(i: u32, j: u32) -> Flows {
  if (!interior(i, j)) { return NO_FLOWS; }
  let c = grid.cols;
  let k = i * c + j;
  let walls = walls_at(k);
  if (gives_no_flow(h_in[k], walls)) { return NO_FLOWS; }
  let u = array<vec2<f32>, 5>(
    df_add(z[k], EPS_DF),
    df_add(z[k - c], h_in[k - c]),
    df_add(z[k - 1u], h_in[k - 1u]),
    df_add(z[k + 1u], h_in[k + 1u]),
    df_add(z[k + c], h_in[k + c]),
  );
  return outflows_df(h_in[k], u, walls);
}

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.y;
  let j = id.x;
  if (!interior(i, j)) { return; }
  let c = grid.cols;
  let k = i * c + j;
  // Dry among dry neighbours: nothing flows in or out (gives_no_flow), and the update would give +0.
  if (h_in[k].x == 0.0 && h_in[k - c].x == 0.0 && h_in[k - 1u].x == 0.0 && h_in[k + 1u].x == 0.0 && h_in[k + c].x == 0.0) {
    h_out[k] = vec2<f32>(0.0);
    return;
  }
  let n = outflows_of(i - 1u, j);
  let w = outflows_of(i, j - 1u);
  let e = outflows_of(i, j + 1u);
  let s = outflows_of(i + 1u, j);
  let inflow = Flows(vec4<f32>(n.hi.w, w.hi.z, e.hi.y, s.hi.x), vec4<f32>(n.lo.w, w.lo.z, e.lo.y, s.lo.x));
  h_out[k] = updated_df(h_in[k], outflows_of(i, j), inflow);
}
