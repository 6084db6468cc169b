// Column statistics, precision part (f32): values are f32 bits, computed in f32 as the studies'
// "float" versions did. Sums are compensated (Neumaier) in f32. |x − median| is rounded from
// the exact difference in integers, so that it equals the CPU's Math.fround(x - median) even
// where a GPU would flush subnormals.

#include "stats/common"

alias Word = u32;

fn is_nonfinite(w: Word) -> bool {
  return (w & 0x7f800000u) == 0x7f800000u;
}

fn word_key(w: Word) -> vec2<u32> {
  if DEV { return f32_key(absdiff_f32(w, params.center.x)); }
  return f32_key(w);
}

fn value_key(w: Word) -> vec2<u32> {
  return f32_key(w);
}

// |a − b| of finite floats, rounded to nearest-even (guard, round and sticky bits: 27 in all).
fn absdiff_f32(a: u32, b: u32) -> u32 {
  var big = a & 0x7fffffffu;
  var small = b & 0x7fffffffu;
  if big < small {
    let t = big;
    big = small;
    small = t;
  }
  let subtract = ((a ^ b) & 0x80000000u) == 0u;
  var ex = (big >> 23u) & 0xffu;
  var mx = big & 0x7fffffu;
  if ex == 0u { ex = 1u; } else { mx |= 0x800000u; }
  var ey = (small >> 23u) & 0xffu;
  var my = small & 0x7fffffu;
  if ey == 0u { ey = 1u; } else { my |= 0x800000u; }
  let d = ex - ey;
  mx <<= 3u;
  var y = my << 3u;
  if d >= 27u {
    y = select(0u, 1u, my != 0u);
  } else if d > 0u {
    let kept = y >> d;
    y = kept | select(0u, 1u, (kept << d) != y);
  }
  var e = ex;
  var r = select(mx + y, mx - y, subtract);
  if (r >> 27u) != 0u {
    r = (r >> 1u) | (r & 1u);
    e += 1u;
  } else {
    if r == 0u { return 0u; }
    let len = 32u - countLeadingZeros(r);
    if len < 27u {
      let s = min(27u - len, e - 1u);
      r <<= s;
      e -= s;
    }
  }
  let grs = r & 7u;
  r >>= 3u;
  if grs > 4u || (grs == 4u && (r & 1u) == 1u) { r += 1u; }
  if (r >> 24u) != 0u {
    r >>= 1u;
    e += 1u;
  }
  if e >= 255u { return 0x7f800000u; }
  if (r & 0x800000u) == 0u { return r; }
  return (r & 0x7fffffu) | (e << 23u);
}

// A compensated f32 sum: the value is s + c.
struct Sum {
  s: f32,
  c: f32,
}

fn sum_empty() -> Sum {
  return Sum(0.0, 0.0);
}

fn neumaier(acc: ptr<function, Sum>, v: f32) {
  let s = (*acc).s;
  let t = s + v;
  if abs(s) >= abs(v) {
    (*acc).c += (s - t) + v;
  } else {
    (*acc).c += (v - t) + s;
  }
  (*acc).s = t;
}

// x, or (x − mean)² in f32.
fn sum_add(acc: ptr<function, Sum>, w: Word) {
  let x = bitcast<f32>(w);
  if DEV {
    let d = x - bitcast<f32>(params.mean.x);
    neumaier(acc, d * d);
  } else {
    neumaier(acc, x);
  }
}

// TwoSum of the main parts, so that no rounding error of the merge is lost.
fn sum_merge(a: Sum, b: Sum) -> Sum {
  let s = a.s + b.s;
  let bb = s - a.s;
  let err = (a.s - (s - bb)) + (b.s - bb);
  return Sum(s, (a.c + b.c) + err);
}

fn store_partial(g: u32, s: Sum) {
  partials[2u * g] = vec4<u32>(bitcast<u32>(s.s), bitcast<u32>(s.c), 0u, 0u);
}

fn load_partial_for_total(g: u32) -> Sum {
  let p = partials[2u * g];
  return Sum(bitcast<f32>(p.x), bitcast<f32>(p.y));
}

fn store_total(s: Sum) {
  state.sum = vec4<u32>(bitcast<u32>(s.s), bitcast<u32>(s.c), 0u, 0u);
  state.sum_unit = 0;
}
