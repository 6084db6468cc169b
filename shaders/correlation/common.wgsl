// Correlation kernels, common part: the parameters every kernel reads, and the sums they make.
//
// COMP selects the f64 mode's arithmetic: the series arrive as two f32 words (hi + lo, together
// about 48 bits), and sums are compensated: an accumulator is vec2(sum, error), the error of each
// addition kept exactly by TwoSum (Knuth) and added back at the end. Without COMP (the f32 mode)
// the lo words are not read and sums are plain f32. Nothing here relies on fused multiply-adds.

override COMP: bool = true;

// Word offsets are mirrored in src/main/workloads/correlation/gpu/params.ts.
struct Params {
  rows: u32,     // series of the band (of band I for the cross-products)
  n: u32,        // samples per series
  k: u32,        // padded samples: the row stride of the centred series d, a multiple of 16
  row0: u32,     // the band's first series, in means, norms and constant flags
  rows_j: u32,   // series of band J (cross-products, coefficients)
  row0_j: u32,
  diag: u32,     // 1: bands I and J are one band, and only its upper triangle is wanted
  blocks: u32,   // workgroups with work: the rest of the grid returns at once
  blocks_j: u32, // blocks per row of band J (cross-products over a rectangle)
  stride_c: u32, // row stride of the pair's output tile
  _pad0: u32,
  first: u32,    // the first workgroup of this dispatch: long work is submitted in pieces (src/main/gpu/pieces.ts)
}

fn two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = a + b;
  let bb = s - a;
  return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}

// acc + v: compensated under COMP, plain otherwise.
fn acc_add(acc: vec2<f32>, v: f32) -> vec2<f32> {
  if (COMP) {
    let t = two_sum(acc.x, v);
    return vec2<f32>(t.x, acc.y + t.y);
  }
  return vec2<f32>(acc.x + v, 0.0);
}

// Two accumulators into one.
fn acc_merge(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  if (COMP) {
    let t = two_sum(a.x, b.x);
    return vec2<f32>(t.x, (a.y + b.y) + t.y);
  }
  return vec2<f32>(a.x + b.x, 0.0);
}

fn acc_value(acc: vec2<f32>) -> f32 {
  return acc.x + acc.y;
}

// A quiet NaN, from a value only known at run time (zero): WGSL rejects NaN in constant expressions.
fn nan(zero: u32) -> f32 {
  return bitcast<f32>(0x7fc00000u | zero);
}

// The linear id of a workgroup of a 2-D grid (more than 65535 workgroups are split over y).
fn group_id(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return params.first + wid.x + wid.y * nwg.x;
}
