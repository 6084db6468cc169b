// The double-float layers every three-pass landslide module binds (--precision accurate; binding
// numbers as in layers.wgsl), and σ1 and σ2 of a cell on them. Each value is vec2(hi, lo).
#include "landslide/sciddica_df"

@group(0) @binding(0) var<uniform> grid: Grid;
// Altitude as the f64 grid holds it (double-float carries the relief's bits without a shift).
@group(0) @binding(1) var<storage, read> z: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> h: array<vec2<f32>>;
// The four outflows of each cell: north, west, east, south.
@group(0) @binding(3) var<storage, read_write> f: array<Flows>;
// Wall bits, four cells to a word.
@group(0) @binding(4) var<storage, read> mask: array<u32>;

#include "landslide/cells"

// σ1 for cell k from the layers in memory.
fn outflows_at(k: u32) -> Flows {
  let walls = walls_at(k);
  if (gives_no_flow(h[k], walls)) { return NO_FLOWS; }
  let c = grid.cols;
  let u = array<vec2<f32>, 5>(
    df_add(z[k], EPS_DF),
    df_add(z[k - c], h[k - c]),
    df_add(z[k - 1u], h[k - 1u]),
    df_add(z[k + 1u], h[k + 1u]),
    df_add(z[k + c], h[k + c]),
  );
  return outflows_df(h[k], u, walls);
}

fn has_debris(k: u32) -> bool {
  return h[k].x != 0.0;
}

// σ2 for cell k from the outflows in memory.
fn update_at(k: u32) {
  let c = grid.cols;
  let n = f[k - c];
  let w = f[k - 1u];
  let e = f[k + 1u];
  let s = f[k + c];
  h[k] = updated_df(h[k], f[k], Flows(vec4<f32>(n.hi.w, w.hi.z, e.hi.y, s.hi.x), vec4<f32>(n.lo.w, w.lo.z, e.lo.y, s.lo.x)));
}
