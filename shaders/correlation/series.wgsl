// The series of a band as the means and squares kernels read them: hi words, and under COMP the
// lo words that carry the rest of each f64 value.
#include "correlation/common"

@group(0) @binding(0) var<storage, read> xhi: array<f32>;
@group(0) @binding(1) var<storage, read> xlo: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

// Sample k of the band's series `row`, as an accumulator term (hi, lo).
fn sample(row: u32, k: u32) -> vec2<f32> {
  let at = row * params.n + k;
  if (COMP) {
    return vec2<f32>(xhi[at], xlo[at]);
  }
  return vec2<f32>(xhi[at], 0.0);
}

// acc + x for a sample x = (hi, lo).
fn acc_add_sample(acc: vec2<f32>, x: vec2<f32>) -> vec2<f32> {
  if (COMP) {
    let t = two_sum(acc.x, x.x);
    return vec2<f32>(t.x, (acc.y + x.y) + t.y);
  }
  return vec2<f32>(acc.x + x.x, 0.0);
}
