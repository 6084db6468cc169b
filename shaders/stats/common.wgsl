// Column statistics, common part: what every kernel shares, written once and included by the
// other parts. `Word` (a value's bits) comes from the precision part, f64.wgsl or f32.wgsl.
//
// 64-bit integers are vec2<u32>(lo, hi); 128-bit ones vec4<u32>, least significant word first.
// A key is the order-preserving image of a value (see src/main/workloads/stats/keys.ts): unsigned key
// order is numeric order, −0 just below +0. f32 keys sit in the high word with lo = 0.

override WG: u32 = 256u; // threads per workgroup, a power of two
// false: the pass reads x (sum of x, keys of x); true: the deviation pass (sum of (x − mean)²,
// keys of |x − median|).
override DEV: bool = false;

const MAX_KEY = vec2<u32>(0xffffffffu, 0xffffffffu);
const ZERO64 = vec2<u32>(0u, 0u);
const ONE64 = vec2<u32>(1u, 0u);

// Selection narrows a key range by histograms of BINS equal slices of it per level.
const RADIX_BITS = 11u;
const BINS = 2048u;

struct Params {
  n: u32,
  capacity: u32, // candidate keys the candidates buffer holds
  scan_groups: u32,
  refine_groups: u32, // workgroups of a selection level
  _pad0: u32,
  _pad1: u32,
  mean: vec2<u32>, // bits in the working precision (f32 in .x)
  center: vec2<u32>, // the median, for |x − median|
  // The deviation pass's bracket (keys of |x − median|) and scan intervals (keys of x), see State.
  bracket_lo: vec2<u32>,
  bracket_hi: vec2<u32>,
  inner_lo: vec2<u32>,
  inner_hi: vec2<u32>,
  outer_lo: vec2<u32>,
  outer_hi: vec2<u32>,
  exact: u32, // 1: the bracket's ends are the answers
}

// One wanted order statistic: its key lies in [lo, hi] at `rank` among the keys there.
struct Target {
  lo: vec2<u32>,
  hi: vec2<u32>,
  rank: u32,
  done: u32,
  key: vec2<u32>,
}

// Word offsets are mirrored in src/main/workloads/stats/gpu/layout.ts.
struct State {
  // The bracket of the middle ranks, in selection keys (of x, or of |x − median|).
  bracket_lo: vec2<u32>,
  bracket_hi: vec2<u32>,
  below: atomic<u32>, // keys under the bracket
  inside: atomic<u32>, // keys in the bracket
  candidates: atomic<u32>, // keys the scan tried to store (stored while < capacity)
  compacted: u32, // 1: every key still in play is in the candidates buffer
  nonfinite: atomic<u32>,
  error: u32,
  _pad0: u32,
  _pad1: u32,
  sum_unit: i32,
  _pad2: u32,
  _pad3: u32,
  _pad4: u32,
  sum: vec4<u32>,
  targets: array<Target, 2>,
  // The scan's bracket test on the keys of x: `inner` holds the keys selected below the
  // bracket, `outer` those below or inside it (empty when lo > hi). In the deviation pass this
  // spares computing |x − median| for the values outside.
  inner_lo: vec2<u32>,
  inner_hi: vec2<u32>,
  outer_lo: vec2<u32>,
  outer_hi: vec2<u32>,
}

@group(0) @binding(0) var<storage, read> data: array<Word>;
@group(0) @binding(1) var<uniform> params: Params;
@group(0) @binding(2) var<storage, read_write> state: State;
@group(0) @binding(3) var<storage, read_write> partials: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> candidates: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> slots: array<vec4<u32>>;
// The sorted sample of x keys, read back for the deviation pass's bracket.
@group(0) @binding(8) var<storage, read_write> sorted_sample: array<vec2<u32>>;

// ---- 64-bit unsigned integers ----

fn lt64(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn le64(a: vec2<u32>, b: vec2<u32>) -> bool {
  return !lt64(b, a);
}

fn min64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if lt64(b, a) { return b; }
  return a;
}

fn max64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if lt64(a, b) { return b; }
  return a;
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

// Shifts guard their amounts: WGSL takes a runtime shift modulo 32.
fn shr64(a: vec2<u32>, s: u32) -> vec2<u32> {
  if s == 0u { return a; }
  if s >= 64u { return ZERO64; }
  if s >= 32u { return vec2<u32>(a.y >> (s - 32u), 0u); }
  return vec2<u32>((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}

fn shl64(a: vec2<u32>, s: u32) -> vec2<u32> {
  if s == 0u { return a; }
  if s >= 64u { return ZERO64; }
  if s >= 32u { return vec2<u32>(0u, a.x << (s - 32u)); }
  return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}

// One count of leading zeros, on the word that holds the leading bit (a count is a slow op on GPUs).
fn bitlen64(a: vec2<u32>) -> u32 {
  let high = a.y != 0u;
  return select(32u, 64u, high) - countLeadingZeros(select(a.x, a.y, high));
}

// ---- keys ----

fn f64_key(bits: vec2<u32>) -> vec2<u32> {
  if (bits.y >> 31u) != 0u { return ~bits; }
  return vec2<u32>(bits.x, bits.y | 0x80000000u);
}

fn f32_key(bits: u32) -> vec2<u32> {
  let flip = select(0x80000000u, 0xffffffffu, (bits >> 31u) != 0u);
  return vec2<u32>(0u, bits ^ flip);
}

fn in_range(k: vec2<u32>, t: Target) -> bool {
  return le64(t.lo, k) && le64(k, t.hi);
}

fn in_interval(k: vec2<u32>, lo: vec2<u32>, hi: vec2<u32>) -> bool {
  return le64(lo, k) && le64(k, hi);
}

// The slices of a target's range are 2^shift keys wide, so that at most BINS cover it.
fn range_shift(t: Target) -> u32 {
  let len = bitlen64(sub64(t.hi, t.lo));
  return select(0u, len - RADIX_BITS, len > RADIX_BITS);
}
