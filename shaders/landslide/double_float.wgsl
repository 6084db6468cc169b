// Double-float arithmetic: a value is vec2(hi, lo), two f32 whose sum it is, with hi = the f32
// nearest to hi + lo (so |lo| ≤ half an ulp of hi, about 48 bits together, and each value has one
// form: comparisons may look at hi, then lo). Sums use Knuth's TwoSum, which keeps the rounding
// error of an f32 addition exactly. Nothing here depends on fused multiply-adds or on f32 division
// being correctly rounded (WGSL allows 2.5 ulp): the only products are by powers of two, exact
// whether or not a compiler fuses them, and quotients are corrected from their exact remainders.
// TwoSum does depend on additions not being re-associated; test/gpu/landslide-accurate.test.ts
// checks that it survives the compiler on the adapter at hand.

// a + b exactly, as (the rounded sum, its rounding error).
fn df_two_sum(a: f32, b: f32) -> vec2<f32> {
  let s = a + b;
  let bb = s - a;
  return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}

// a + b exactly when |a| ≥ |b| (or a = 0), in three additions.
fn df_quick_two_sum(a: f32, b: f32) -> vec2<f32> {
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
