// SciddicaT in f32: the model's constants and the minimization algorithm of the differences,
// shared by every landslide kernel (the f64 rows in src/main/workloads/landslide/sciddica.ts are
// the reference; the order of the sums is theirs).

#include "landslide/grid"

const EPS: f32 = 0.001;   // p_ε, adherence
const RELAX: f32 = 0.5;   // p_r, relaxation
const NO_FLOWS = vec4<f32>(0.0);

// Outflows toward north, west, east, south of a cell of thickness h and altitude z whose
// neighbours stand at u (z + h of north, west, east, south). Neighbours at or above the average
// of those left are eliminated until none is; walls start out eliminated.
fn outflows(h: f32, z: f32, u: vec4<f32>, walls: u32) -> vec4<f32> {
  if ((walls & WALL_SELF) != 0u) { return vec4<f32>(0.0); }
  let m = h - EPS;
  let u0 = z + EPS;
  var keep0 = true;
  var keep = vec4<bool>((walls & 2u) == 0u, (walls & 4u) == 0u, (walls & 8u) == 0u, (walls & 16u) == 0u);
  var average = m;
  loop {
    var sum = m;
    var count = 0.0;
    if (keep0) { sum += u0; count += 1.0; }
    if (keep.x) { sum += u.x; count += 1.0; }
    if (keep.y) { sum += u.y; count += 1.0; }
    if (keep.z) { sum += u.z; count += 1.0; }
    if (keep.w) { sum += u.w; count += 1.0; }
    average = select(sum, sum / count, count > 0.0);
    let next0 = keep0 && u0 < average;
    let next = keep & (u < vec4<f32>(average));
    if (next0 == keep0 && all(next == keep)) { break; }
    keep0 = next0;
    keep = next;
  }
  return select(vec4<f32>(0.0), (vec4<f32>(average) - u) * RELAX, keep);
}

// σ2: the thickness after the outflows `own` and the inflows from north, west, east, south.
fn updated(h: f32, own: vec4<f32>, inflow: vec4<f32>) -> f32 {
  var next = h;
  next += inflow.x - own.x;
  next += inflow.y - own.y;
  next += inflow.z - own.z;
  next += inflow.w - own.w;
  return next;
}
