// Column statistics, precision part (f64): values are raw IEEE-754 doubles, two u32 words each.
// WGSL has no f64, so everything here is integer arithmetic on the bits:
//  - |a − b| correctly rounded to nearest-even, as the CPU's Math.abs(a - b), subnormals included;
//  - sums in 128-bit fixed point: a value m·2^e (m < 2^53) is added as m shifted to the
//    accumulator's unit, which rises with the largest term seen. A thread drops bits below
//    2^-101 of its largest term, the total of ≤ 1024 workgroup partials below 2^-85, so a sum
//    is accurate to about 2^-75 of its largest term, whatever the order or the cancellation.

#include "stats/common"

alias Word = vec2<u32>;

fn is_nonfinite(w: Word) -> bool {
  return (w.y & 0x7ff00000u) == 0x7ff00000u;
}

// The key of the value selected on: x, or |x − median| in the deviation pass.
fn word_key(w: Word) -> vec2<u32> {
  if DEV { return f64_key(absdiff_f64(w, params.center)); }
  return f64_key(w);
}

// The key of x itself, in either pass.
fn value_key(w: Word) -> vec2<u32> {
  return f64_key(w);
}

// ---- exact |a − b| ----

// value = m · 2^(e − 1075), with e ≥ 1 (subnormals get e = 1 and no hidden bit).
struct Unpacked {
  e: u32,
  m: vec2<u32>,
}

fn unpack_f64(bits: vec2<u32>) -> Unpacked {
  let e = (bits.y >> 20u) & 0x7ffu;
  let frac = vec2<u32>(bits.x, bits.y & 0xfffffu);
  if e == 0u { return Unpacked(1u, frac); }
  return Unpacked(e, vec2<u32>(frac.x, frac.y | 0x100000u));
}

// |a − b| of finite doubles, rounded to nearest-even, in one branch-free path (the deviation
// scan runs it for every value, so lanes of a warp must not diverge):
//  - in a 64-bit window, the larger magnitude's mantissa sits WINDOW bits up, the smaller's is
//    aligned to it; when the exponents differ by at most WINDOW this is exact (integer data
//    around a mean are that case), else the bits shifted out are ORed into bit 0 (round to odd).
//    The difference is then at least 62 bits long, so that bit lies well below the rounding
//    position and rounding once to 53 bits gives the correctly rounded result;
//  - a subnormal difference is exact (both operands are multiples of 2^-1074): it is only moved
//    to the subnormal unit, never rounded.
// The result comes unpacked (e ≥ 2047 means it overflowed to infinity).
const WINDOW = 10u;

fn absdiff_parts(a: vec2<u32>, b: vec2<u32>) -> Unpacked {
  // x: the operand of larger magnitude (b, the mean, is the same for every value: its unpacking
  // can be hoisted out of the scan's loop).
  let ua = unpack_f64(a);
  let ub = unpack_f64(b);
  let swap = lt64(vec2<u32>(a.x, a.y & 0x7fffffffu), vec2<u32>(b.x, b.y & 0x7fffffffu));
  let x = Unpacked(select(ua.e, ub.e, swap), select(ua.m, ub.m, swap));
  let y = Unpacked(select(ub.e, ua.e, swap), select(ub.m, ua.m, swap));
  // Same signs: the magnitudes subtract; opposite signs: they add.
  let subtract = ((a.y ^ b.y) & 0x80000000u) == 0u;
  let big = shl64(x.m, WINDOW);
  let small = shr64_sticky(shl64(y.m, WINDOW), x.e - y.e);
  let w = select(add64(big, small), sub64(big, small), subtract); // units of 2^(x.e − WINDOW − 1075)
  // Leading bit to bit 63, but not past the subnormal unit (2^-1074, that is 2^(1 − x.e) units):
  // the result's exponent is then x.e + 1 − shift.
  let shift = min(min(64u - bitlen64(w), x.e), 63u);
  let r = round_top53(shl64_lt64(w, shift));
  // A carry out of the rounding (2^53): one bit down, the exponent one up.
  let carry = r.y >> 21u;
  let e = select(x.e + 1u - shift + carry, 1u, all(w == ZERO64)); // zero: (1, 0)
  return Unpacked(e, vec2<u32>(r.x, r.y >> carry));
}

// The top 53 of 64 bits, rounded to nearest-even on the 11 below (a value ≥ 2^53 is a carry out).
fn round_top53(t: vec2<u32>) -> vec2<u32> {
  let m = vec2<u32>((t.x >> 11u) | (t.y << 21u), t.y >> 11u);
  let rest = t.x & 0x7ffu; // above half, or half with an odd m: up
  return add64(m, vec2<u32>(select(0u, 1u, rest + (m.x & 1u) > 0x400u), 0u));
}

// a >> s for any s, the bits shifted out ORed into bit 0 (sticky): those are the bits that a
// left shift by 64 − s keeps (by 0 for s ≥ 64: all of a).
fn shr64_sticky(a: vec2<u32>, s: u32) -> vec2<u32> {
  let kept = select(ZERO64, shr64_lt64(a, s), s < 64u);
  let lost = (s != 0u) & any(shl64_lt64(a, (64u - min(s, 64u)) & 63u) != ZERO64);
  return vec2<u32>(kept.x | select(0u, 1u, lost), kept.y);
}

// Shifts by s < 64 without branches (a runtime shift by 32 or more would wrap in WGSL: the
// funnel's second operand is shifted in two steps so that t = 0 moves nothing across).
fn shr64_lt64(a: vec2<u32>, s: u32) -> vec2<u32> {
  let far = s >= 32u;
  let lo = select(a.x, a.y, far);
  let hi = select(a.y, 0u, far);
  let t = s & 31u;
  return vec2<u32>((lo >> t) | ((hi << 1u) << (31u - t)), hi >> t);
}

fn shl64_lt64(a: vec2<u32>, s: u32) -> vec2<u32> {
  let far = s >= 32u;
  let lo = select(a.x, 0u, far);
  let hi = select(a.y, a.x, far);
  let t = s & 31u;
  return vec2<u32>(lo << t, (hi << t) | ((lo >> 1u) >> (31u - t)));
}

fn absdiff_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let d = absdiff_parts(a, b);
  if d.e >= 2047u { return vec2<u32>(0u, 0x7ff00000u); }
  // No hidden bit: a subnormal result (e is 1), whose exponent field is 0.
  if (d.m.y & 0x100000u) == 0u { return d.m; }
  return vec2<u32>(d.m.x, (d.m.y & 0xfffffu) | (d.e << 20u));
}

// ---- 128-bit fixed point ----

fn add128(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let w0 = a.x + b.x;
  let c0 = select(0u, 1u, w0 < a.x);
  let s1 = a.y + b.y;
  let w1 = s1 + c0;
  let c1 = select(0u, 1u, s1 < a.y) + select(0u, 1u, w1 < s1);
  let s2 = a.z + b.z;
  let w2 = s2 + c1;
  let c2 = select(0u, 1u, s2 < a.z) + select(0u, 1u, w2 < s2);
  return vec4<u32>(w0, w1, w2, a.w + b.w + c2);
}

// a >> s, the vacated high bits set to `fill` (0, or all ones for a negative two's complement).
// Branch-free: whole words move by selects (a runtime index into a vector can cost a trip to
// local memory), the rest by funnel shifts (see shr64_lt64).
fn shr128(a: vec4<u32>, s: u32, fill: u32) -> vec4<u32> {
  var v = select(a, vec4<u32>(a.zw, fill, fill), s >= 64u);
  v = select(v, vec4<u32>(v.yzw, fill), (s & 32u) != 0u);
  let t = vec4<u32>(s & 31u);
  let r = (v >> t) | ((vec4<u32>(v.yzw, fill) << vec4<u32>(1u)) << (vec4<u32>(31u) - t));
  return select(r, vec4<u32>(fill), s >= 128u);
}

fn shl128(a: vec4<u32>, s: u32) -> vec4<u32> {
  if s >= 128u { return vec4<u32>(0u); }
  var v = a;
  if s >= 64u { v = vec4<u32>(0u, 0u, v.xy); }
  if (s & 32u) != 0u { v = vec4<u32>(0u, v.xyz); }
  let b = s & 31u;
  if b == 0u { return v; }
  let c = 32u - b;
  return vec4<u32>(v.x << b, (v.y << b) | (v.x >> c), (v.z << b) | (v.y >> c), (v.w << b) | (v.z >> c));
}

fn sub128(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let w0 = a.x - b.x;
  let c0 = select(0u, 1u, a.x < b.x);
  let s1 = a.y - b.y;
  let w1 = s1 - c0;
  let c1 = select(0u, 1u, a.y < b.y) + select(0u, 1u, s1 < c0);
  let s2 = a.z - b.z;
  let w2 = s2 - c1;
  let c2 = select(0u, 1u, a.z < b.z) + select(0u, 1u, s2 < c1);
  return vec4<u32>(w0, w1, w2, a.w - b.w - c2);
}

// 32 × 32 → 64-bit product: WGSL's multiply keeps the low word; the high one comes from 16-bit
// halves, summed so that nothing overflows and no carry needs a compare (Hacker's Delight mulhu).
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let t = a1 * b0 + ((a0 * b0) >> 16u);
  let u = a0 * b1 + (t & 0xffffu);
  return vec2<u32>(a * b, a1 * b1 + (t >> 16u) + (u >> 16u));
}

// m² of a mantissa m = h·2^32 + l < 2^53: 106 bits, as l² + (l·2h)·2^32 + h²·2^64 (2h < 2^22,
// so the cross term is one product).
fn square53(m: vec2<u32>) -> vec4<u32> {
  let ll = mul_wide(m.x, m.x);
  let lh2 = mul_wide(m.x, m.y << 1u);
  let hh = mul_wide(m.y, m.y);
  let w1 = ll.y + lh2.x;
  // lh2.y < 2^22: adding the carry cannot overflow.
  let high = add64(hh, vec2<u32>(lh2.y + select(0u, 1u, w1 < ll.y), 0u));
  return vec4<u32>(ll.x, w1, high);
}

// A signed 128-bit sum in units of 2^unit. Every term is below 2^TERM_BITS units when added, so
// 2^26 terms fit; a workgroup adds far fewer.
struct Sum {
  v: vec4<u32>,
  unit: i32,
}

const EMPTY_UNIT = -1000000;
const TERM_BITS = 101;

fn sum_empty() -> Sum {
  return Sum(vec4<u32>(0u), EMPTY_UNIT);
}

fn sign_fill(v: vec4<u32>) -> u32 {
  return select(0u, 0xffffffffu, (v.w >> 31u) != 0u);
}

// The sum's value in units of 2^unit (unit ≥ s.unit); low bits are dropped.
fn rescale(s: Sum, unit: i32) -> vec4<u32> {
  return shr128(s.v, u32(unit - s.unit), sign_fill(s.v));
}

fn sum_merge(a: Sum, b: Sum) -> Sum {
  let unit = max(a.unit, b.unit);
  return Sum(add128(rescale(a, unit), rescale(b, unit)), unit);
}

// Makes room for a term below 2^(top) (an exponent): the unit rises when the term needs it.
fn raise_unit(acc: ptr<function, Sum>, top: i32) {
  let need = top - TERM_BITS;
  if need > (*acc).unit {
    (*acc).v = rescale(*acc, need);
    (*acc).unit = need;
  }
}

// Adds ±m · 2^e for a mantissa m < 2^53: shifted left at most 48 bits, or right.
fn add_value(acc: ptr<function, Sum>, m: vec2<u32>, e: i32, negative: bool) {
  raise_unit(acc, e + 53);
  let sh = e - (*acc).unit;
  var t: vec4<u32>;
  if sh >= 0 {
    let s = u32(sh);
    if s >= 32u {
      let b = s - 32u;
      t = vec4<u32>(0u, m.x << b, select((m.y << b) | (m.x >> (32u - b)), m.y, b == 0u), select(m.y >> (32u - b), 0u, b == 0u));
    } else {
      t = vec4<u32>(m.x << s, select((m.y << s) | (m.x >> (32u - s)), m.y, s == 0u), select(m.y >> (32u - s), 0u, s == 0u), 0u);
    }
  } else {
    t = vec4<u32>(shr64(m, u32(-sh)), 0u, 0u);
  }
  if negative {
    (*acc).v = sub128((*acc).v, t);
  } else {
    (*acc).v = add128((*acc).v, t);
  }
}

// Adds sq · 2^e for a square sq < 2^106: always shifted right (by 5 or more).
fn add_square(acc: ptr<function, Sum>, sq: vec4<u32>, e: i32) {
  raise_unit(acc, e + 106);
  (*acc).v = add128((*acc).v, shr128(sq, u32((*acc).unit - e), 0u));
}

// x, or (x − mean)² with x − mean rounded as in f64 and then squared exactly.
fn sum_add(acc: ptr<function, Sum>, w: Word) {
  if DEV {
    let d = absdiff_parts(w, params.mean);
    if any(d.m != ZERO64) {
      add_square(acc, square53(d.m), 2 * (i32(d.e) - 1075));
    }
  } else {
    let x = unpack_f64(w);
    if any(x.m != ZERO64) {
      add_value(acc, x.m, i32(x.e) - 1075, (w.y >> 31u) != 0u);
    }
  }
}

fn store_partial(g: u32, s: Sum) {
  partials[2u * g] = s.v;
  partials[2u * g + 1u] = vec4<u32>(bitcast<u32>(s.unit), 0u, 0u, 0u);
}

// A workgroup's partial, 16 bits lower so that 2^16 partials add without overflow.
fn load_partial_for_total(g: u32) -> Sum {
  let v = partials[2u * g];
  let unit = bitcast<i32>(partials[2u * g + 1u].x);
  return Sum(shr128(v, 16u, sign_fill(v)), unit + 16);
}

fn store_total(s: Sum) {
  state.sum = s.v;
  state.sum_unit = s.unit;
}
