// Double-float arithmetic: a value is vec2(hi, lo), two f32 whose sum it is, with hi = the f32
// nearest to hi + lo (so |lo| ≤ half an ulp of hi, about 48 bits together, and each value has one
// form: comparisons may look at hi, then lo). Sums use Knuth's TwoSum, which keeps the rounding
// error of an f32 addition exactly. Nothing here depends on fused multiply-adds or on f32 division
// being correctly rounded (WGSL allows 2.5 ulp): the only products are by powers of two, exact
// whether or not a compiler fuses them, and quotients are corrected from their exact remainders.
// TwoSum and quick TwoSum (the only error-free transformations) depend on additions not being
// re-associated: a compiler that folds (a + b) - a to b loses the error term. DF_GUARD picks how
// they are protected (test/gpu/landslide-accurate.test.ts checks each on the adapter at hand):
//   0: none, the textbook formulas (exact under IEEE semantics, as on SwiftShader);
//   1: opaque: every operand and intermediate passes through df_opaque, an OR with a zero the
//      compiler reads from the grid uniform, so no expression can be rewritten across them;
//   2: integer: the operands ordered by magnitude, s = a + b rounded, and the exact s - a that
//      the error needs computed from the bits of s and a, which no float identity relates to b.
// The including module declares `grid: Grid` (landslide/grid), whose `zero` the host keeps at 0.
override DF_GUARD: u32 = 1u;

// x, unchanged, through an operation no optimizer can see through.
fn df_opaque(x: f32) -> f32 {
  return bitcast<f32>(bitcast<u32>(x) | grid.zero);
}

// a + b exactly (DF_GUARD 2): ordered by magnitude (an integer compare), x + y rounded, and its
// error y - (s - x) with s - x, an f32 by Fast2Sum's theorem, from the integer significands. When
// s's exponent is 2 or more below x's, x + y cancelled exactly (Sterbenz) and s - x = y; otherwise
// both fit, one bit apart at most, in units of the smaller exponent (ldexp is exact unless the
// result lies below 2^-104, which the model's values never approach).
fn df_int_two_sum(a: f32, b: f32) -> vec2<f32> {
  let swap = (bitcast<u32>(b) & 0x7fffffffu) > (bitcast<u32>(a) & 0x7fffffffu);
  let x = select(a, b, swap);
  let y = select(b, a, swap);
  let s = x + y;
  let us = bitcast<u32>(s);
  let ux = bitcast<u32>(x);
  let es = max((us >> 23u) & 0xffu, 1u);
  let ex = max((ux >> 23u) & 0xffu, 1u);
  if (es + 1u < ex) { return vec2<f32>(s, 0.0); }
  let e0 = min(es, ex);
  let ms = i32(((us & 0x7fffffu) | select(0u, 0x800000u, (us & 0x7f800000u) != 0u)) << (es - e0));
  let mx = i32(((ux & 0x7fffffu) | select(0u, 0x800000u, (ux & 0x7f800000u) != 0u)) << (ex - e0));
  let d = select(ms, -ms, (us >> 31u) != 0u) - select(mx, -mx, (ux >> 31u) != 0u);
  return vec2<f32>(s, y - ldexp(f32(d), i32(e0) - 150));
}

// a + b exactly, as (the rounded sum, its rounding error).
fn df_two_sum(a: f32, b: f32) -> vec2<f32> {
  if (DF_GUARD == 1u) {
    let ao = df_opaque(a);
    let bo = df_opaque(b);
    let s = df_opaque(ao + bo);
    let bb = df_opaque(s - ao);
    let ar = df_opaque(ao - df_opaque(s - bb));
    let br = df_opaque(bo - bb);
    return vec2<f32>(s, ar + br);
  }
  if (DF_GUARD == 2u) { return df_int_two_sum(a, b); }
  let s = a + b;
  let bb = s - a;
  return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}

// a + b exactly when |a| ≥ |b| (or a = 0), in three additions.
fn df_quick_two_sum(a: f32, b: f32) -> vec2<f32> {
  if (DF_GUARD == 1u) {
    let ao = df_opaque(a);
    let bo = df_opaque(b);
    let s = df_opaque(ao + bo);
    return vec2<f32>(s, bo - df_opaque(s - ao));
  }
  // Its integer form needs a's exponent at least b's, which a = 0 breaks: the ordered TwoSum.
  if (DF_GUARD == 2u) { return df_int_two_sum(a, b); }
  let s = a + b;
  return vec2<f32>(s, b - (s - a));
}

// a + b, both double-floats: the sums of the high and of the low parts, each with its error,
// renormalized twice (the accurate form: relative error ~2^-47 even when the two nearly cancel).
fn df_add(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let s = df_two_sum(a.x, b.x);
  let t = df_two_sum(a.y, b.y);
  let u = df_quick_two_sum(s.x, s.y + t.x);
  return df_quick_two_sum(u.x, u.y + t.y);
}

fn df_sub(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  return df_add(a, -b);
}

// q × m exactly for m = 3 or 5: q × (m − 1) is exact (a power of two), so one TwoSum holds it all.
fn df_times_3_or_5(q: f32, m: u32) -> vec2<f32> {
  return df_two_sum(q * f32(m - 1u), q);
}

// a / d for d = 1 … 5 (a count of neighbours): by 1, 2 and 4 exactly, by 3 and 5 as three f32
// quotients, each of the remainder the previous ones leave (computed exactly), summed.
fn df_div_small(a: vec2<f32>, d: u32) -> vec2<f32> {
  switch d {
    case 1u: { return a; }
    case 2u: { return a * 0.5; }
    case 4u: { return a * 0.25; }
    default: {
      let fd = f32(d);
      let q1 = a.x / fd;
      let r1 = df_sub(a, df_times_3_or_5(q1, d));
      let q2 = r1.x / fd;
      let r2 = df_sub(r1, df_times_3_or_5(q2, d));
      let q3 = r2.x / fd;
      return df_add(df_quick_two_sum(q1, q2), vec2<f32>(q3, 0.0));
    }
  }
}

// a ≤ b, for normalized double-floats.
fn df_le(a: vec2<f32>, b: vec2<f32>) -> bool {
  return a.x < b.x || (a.x == b.x && a.y <= b.y);
}
