// What every shortest-paths dispatch is told, and how the matrix is split over bindings.

// Rows per binding (a multiple of 64); ONE_BAND when one binding holds the matrix, which
// compiles the accessors to plain indexing.
const ONE_BAND: u32 = 0xffffffffu;
override BAND_ROWS: u32 = ONE_BAND;

struct Params {
  // Row stride: the matrix side padded to whole blocks (and whole tiles of the kernel).
  n: u32,
  // The k of a per-k dispatch, or the round of a blocked one.
  k: u32,
}

// Real weights (src/main/workloads/paths/real.ts): the matrix holds the bit patterns of non-negative
// f32 distances, which order as their words do as i32, so comparisons and min() stay as they are
// and only sums are taken in f32. "No path" is 2^126, whose sum with any distance stays finite.
override REAL: bool = false;

// The sum of two distances: i32, or f32 on the bit patterns.
fn plus(a: i32, b: i32) -> i32 {
  if (REAL) {
    return bitcast<i32>(bitcast<f32>(a) + bitcast<f32>(b));
  }
  return a + b;
}

fn plus4(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
  if (REAL) {
    return bitcast<vec4<i32>>(bitcast<vec4<f32>>(a) + bitcast<vec4<f32>>(b));
  }
  return a + b;
}
