// The study's tiled kernels with halo: each 16 × 16 workgroup first copies its tile and the ring of
// cells around it into workgroup memory (z + h for the outflows, the outflows for the update), then
// computes from there; the reset pass is kept as the study had it.
#include "landslide/layers"

const T: u32 = 16u;
const S: u32 = 18u;       // T plus a halo cell on each side
const TILE: u32 = 324u;   // S × S

var<workgroup> tile_u: array<f32, TILE>;
var<workgroup> tile_f: array<vec4<f32>, TILE>;

// The grid cell of tile slot q of the workgroup at (i0, j0), or -1 (as u32 max) beyond the grid.
fn slot_cell(q: u32, i0: u32, j0: u32) -> u32 {
  let gi = i32(i0 + q / S) - 1;
  let gj = i32(j0 + q % S) - 1;
  if (gi < 0 || gj < 0 || gi >= i32(grid.rows) || gj >= i32(grid.cols)) { return 0xffffffffu; }
  return u32(gi) * grid.cols + u32(gj);
}

@compute @workgroup_size(16, 16)
fn reset(@builtin(global_invocation_id) id: vec3<u32>) {
  if (!interior(id.y, id.x)) { return; }
  f[id.y * grid.cols + id.x] = vec4<f32>(0.0);
}

@compute @workgroup_size(16, 16)
fn flows(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i0 = wid.y * T;
  let j0 = wid.x * T;
  // 324 slots for 256 threads: two rounds, the same for every thread (barriers need that).
  for (var r = 0u; r < 2u; r++) {
    let q = lid.y * T + lid.x + r * T * T;
    if (q < TILE) {
      let k = slot_cell(q, i0, j0);
      let kk = min(k, grid.n - 1u);
      tile_u[q] = select(0.0, z[kk] + h[kk], k != 0xffffffffu);
    }
  }
  workgroupBarrier();
  let i = i0 + lid.y;
  let j = j0 + lid.x;
  if (!interior(i, j)) { return; }
  let q = (lid.y + 1u) * S + lid.x + 1u;
  let k = i * grid.cols + j;
  f[k] = outflows(h[k], z[k], vec4<f32>(tile_u[q - S], tile_u[q - 1u], tile_u[q + 1u], tile_u[q + S]), walls_at(k));
}

@compute @workgroup_size(16, 16)
fn update(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i0 = wid.y * T;
  let j0 = wid.x * T;
  for (var r = 0u; r < 2u; r++) {
    let q = lid.y * T + lid.x + r * T * T;
    if (q < TILE) {
      let k = slot_cell(q, i0, j0);
      tile_f[q] = select(vec4<f32>(0.0), f[min(k, grid.n - 1u)], k != 0xffffffffu);
    }
  }
  workgroupBarrier();
  let i = i0 + lid.y;
  let j = j0 + lid.x;
  if (!interior(i, j)) { return; }
  let q = (lid.y + 1u) * S + lid.x + 1u;
  let k = i * grid.cols + j;
  h[k] = updated(h[k], tile_f[q], vec4<f32>(tile_f[q - S].w, tile_f[q - 1u].z, tile_f[q + 1u].y, tile_f[q + S].x));
}
