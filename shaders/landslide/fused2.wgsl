// Fused, two steps a dispatch (temporal blocking): each 16 × 16 workgroup copies h, z and the wall
// bits of its tile and a 4-cell ring into workgroup memory (one step reaches two cells: a cell's
// update reads its neighbours' outflows, which read theirs), then runs step 1's outflows over the
// tile + 3 rings, its update over tile + 2, step 2's outflows over tile + 1 and its update over the
// tile, which alone is written. Every value comes from the same `outflows` and `updated` calls on
// the same operands as fused.wgsl's, so the grids match it bit for bit. `main` (fused.wgsl) runs a
// single step where an odd count of steps leaves one.
//
// A region without debris (h = 0 over the tile and its ring) stays without debris for two steps: a
// cell with h = 0 gives nothing (m = h − p_ε < 0), so none of its neighbours receives. Such a
// workgroup writes its tile's zeros after reading h alone: most of a landslide's grid, most of the
// time, is such tiles, and the result is the same bits.
#include "landslide/fused"

// Invocations: 16 × 16 anywhere; 24 × 24 where the adapter allows, one per region slot, so that
// each phase below is one round instead of two or three (a busy tile's chain of phases is what a
// dispatch waits for).
override WG_X: u32 = 16u;
override WG_Y: u32 = 16u;

const T2: u32 = 16u;
const R: u32 = 24u;       // T2 plus 4 ring cells on each side
const R1: u32 = 22u;      // step 1's outflows: tile + 3 rings
const R2: u32 = 20u;      // step 1's update: tile + 2 rings
const R3: u32 = 18u;      // step 2's outflows: tile + 1 ring

var<workgroup> w_h: array<f32, 576>;             // R × R
var<workgroup> w_z: array<f32, 576>;
var<workgroup> w_walls: array<u32, 576>;
var<workgroup> w_f: array<vec4<f32>, 484>;       // R1 × R1, then step 2's R3 × R3
var<workgroup> w_h1: array<f32, 400>;            // R2 × R2
var<workgroup> w_debris: atomic<u32>;            // set when any h of the region is not 0
var<workgroup> w_busy: u32;

// The grid cell of slot (a, b) of the R × R region of the workgroup whose tile starts at (i0, j0).
fn region_cell(a: u32, b: u32, i0: u32, j0: u32) -> vec2<i32> {
  return vec2<i32>(i32(i0 + a) - 4, i32(j0 + b) - 4);
}

fn inside(c: vec2<i32>) -> bool {
  return c.x >= 0 && c.y >= 0 && c.x < i32(grid.rows) && c.y < i32(grid.cols);
}

fn interior_at(c: vec2<i32>) -> bool {
  return inside(c) && interior(u32(c.x), u32(c.y));
}

@compute @workgroup_size(WG_X, WG_Y)
fn two_steps(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let i0 = wid.y * T2;
  let j0 = wid.x * T2;
  let threads = WG_X * WG_Y;
  // Workgroup memory starts undefined where the adapter skips WebGPU's zeroing (SwiftShader here).
  if (t == 0u) { atomicStore(&w_debris, 0u); }
  workgroupBarrier();
  // Rounds of `threads` slots, the same count for every thread (barriers need that); beyond the grid: zeros.
  for (var q = t; q < R * R; q += threads) {
    let c = region_cell(q / R, q % R, i0, j0);
    var hv = 0.0;
    if (inside(c)) { hv = h_in[u32(c.x) * grid.cols + u32(c.y)]; }
    w_h[q] = hv;
    if (hv != 0.0) { atomicStore(&w_debris, 1u); }
  }
  workgroupBarrier();
  if (t == 0u) { w_busy = atomicLoad(&w_debris); }
  if (workgroupUniformLoad(&w_busy) == 0u) {
    for (var q = t; q < T2 * T2; q += threads) {
      let c = region_cell(q / T2 + 4u, q % T2 + 4u, i0, j0);
      if (interior_at(c)) { h_out[u32(c.x) * grid.cols + u32(c.y)] = 0.0; }
    }
    return;
  }
  for (var q = t; q < R * R; q += threads) {
    let c = region_cell(q / R, q % R, i0, j0);
    var zv = 0.0;
    var wv = 0u;
    if (inside(c)) {
      let k = u32(c.x) * grid.cols + u32(c.y);
      zv = z[k];
      wv = walls_at(k);
    }
    w_z[q] = zv;
    w_walls[q] = wv;
  }
  workgroupBarrier();
  // Step 1's outflows: slots (a, b), a and b in 1 … 22.
  for (var q = t; q < R1 * R1; q += threads) {
    let a = q / R1 + 1u;
    let b = q % R1 + 1u;
    var out = vec4<f32>(0.0);
    if (interior_at(region_cell(a, b, i0, j0))) {
      let s = a * R + b;
      let u = vec4<f32>(w_z[s - R] + w_h[s - R], w_z[s - 1u] + w_h[s - 1u], w_z[s + 1u] + w_h[s + 1u], w_z[s + R] + w_h[s + R]);
      out = outflows(w_h[s], w_z[s], u, w_walls[s]);
    }
    w_f[q] = out;
  }
  workgroupBarrier();
  // Step 1's update: a and b in 2 … 21; border cells keep their thickness.
  for (var q = t; q < R2 * R2; q += threads) {
    let a = q / R2 + 2u;
    let b = q % R2 + 2u;
    let s = a * R + b;
    var next = w_h[s];
    if (interior_at(region_cell(a, b, i0, j0))) {
      let f = (a - 1u) * R1 + (b - 1u);
      next = updated(w_h[s], w_f[f], vec4<f32>(w_f[f - R1].w, w_f[f - 1u].z, w_f[f + 1u].y, w_f[f + R1].x));
    }
    w_h1[q] = next;
  }
  workgroupBarrier();
  // Step 2's outflows: a and b in 3 … 20, from step 1's thickness.
  for (var q = t; q < R3 * R3; q += threads) {
    let a = q / R3 + 3u;
    let b = q % R3 + 3u;
    var out = vec4<f32>(0.0);
    if (interior_at(region_cell(a, b, i0, j0))) {
      let s = a * R + b;
      let p = (a - 2u) * R2 + (b - 2u);
      let u = vec4<f32>(w_z[s - R] + w_h1[p - R2], w_z[s - 1u] + w_h1[p - 1u], w_z[s + 1u] + w_h1[p + 1u], w_z[s + R] + w_h1[p + R2]);
      out = outflows(w_h1[p], w_z[s], u, w_walls[s]);
    }
    // Step 1's outflows are all read (barrier above): their slots take step 2's.
    w_f[q] = out;
  }
  workgroupBarrier();
  // Step 2's update over the tile, written out.
  for (var q = t; q < T2 * T2; q += threads) {
    let a = q / T2 + 4u;
    let b = q % T2 + 4u;
    let c = region_cell(a, b, i0, j0);
    if (!interior_at(c)) { continue; }
    let p = (a - 2u) * R2 + (b - 2u);
    let f = (a - 3u) * R3 + (b - 3u);
    h_out[u32(c.x) * grid.cols + u32(c.y)] = updated(w_h1[p], w_f[f], vec4<f32>(w_f[f - R3].w, w_f[f - 1u].z, w_f[f + 1u].y, w_f[f + R3].x));
  }
}
