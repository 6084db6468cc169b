// SciddicaT in double-float (the `accurate` precision): the minimization algorithm of the
// differences and the thickness update with the f64 reference's operations in its order
// (src/main/workloads/landslide/sciddica.ts), each value a vec2(hi, lo) of double_float.wgsl.
#include "landslide/grid"
#include "landslide/double_float"

// p_ε = 0.001 as the f64 constant splits: the f32 nearest to it, and the f32 nearest to the rest.
const EPS_DF = vec2<f32>(0x1.0624dep-10f, -0x1.a1cac0p-35f);

// The four outflows of a cell (toward north, west, east, south), high and low parts apart.
struct Flows {
  hi: vec4<f32>,
  lo: vec4<f32>,
}

const NO_FLOWS = Flows(vec4<f32>(0.0), vec4<f32>(0.0));

// Outflow n (0 north, 1 west, 2 east, 3 south) as a double-float.
fn flow(f: Flows, n: u32) -> vec2<f32> {
  return vec2<f32>(f.hi[n], f.lo[n]);
}

// A cell that gives no flow whatever its neighbours: a wall, or a dry cell (h = 0). Dry, the
// minimization always ends with every neighbour eliminated (the kept ones' differences from their
// average sum to h − p_ε < 0, far beyond rounding, so none can stay below it): the outflows the
// full computation gives are exactly 0, and the kernels skip it, reading no neighbour.
fn gives_no_flow(h: vec2<f32>, walls: u32) -> bool {
  return h.x == 0.0 || (walls & WALL_SELF) != 0u;
}

// The outflows of a cell of thickness h whose u[0] is its altitude + p_ε and u[1…4] the altitude +
// thickness of its north, west, east and south neighbours. Neighbours at or above the average of
// those left are eliminated until none is; walls start out eliminated.
fn outflows_df(h: vec2<f32>, u: array<vec2<f32>, 5>, walls: u32) -> Flows {
  if ((walls & WALL_SELF) != 0u) { return NO_FLOWS; }
  let m = df_sub(h, EPS_DF);
  // Bit q: u[q] eliminated (the wall bits are the neighbours' 1…4).
  var elim = walls & 30u;
  var average = m;
  loop {
    average = m;
    var count = 0u;
    for (var q = 0u; q < 5u; q++) {
      if ((elim & (1u << q)) == 0u) {
        average = df_add(average, u[q]);
        count++;
      }
    }
    if (count != 0u) { average = df_div_small(average, count); }
    let before = elim;
    for (var q = 0u; q < 5u; q++) {
      if ((elim & (1u << q)) == 0u && df_le(average, u[q])) { elim |= 1u << q; }
    }
    if (elim == before) { break; }
  }
  var out = NO_FLOWS;
  for (var n = 0u; n < 4u; n++) {
    if ((elim & (2u << n)) == 0u) {
      // × p_r = 0.5: exact.
      let d = df_sub(average, u[n + 1u]) * 0.5;
      out.hi[n] = d.x;
      out.lo[n] = d.y;
    }
  }
  return out;
}

// σ2: the thickness after the outflows `own` and the inflows from north, west, east, south.
fn updated_df(h: vec2<f32>, own: Flows, inflow: Flows) -> vec2<f32> {
  var next = h;
  for (var n = 0u; n < 4u; n++) { next = df_add(next, df_sub(flow(inflow, n), flow(own, n))); }
  return next;
}
