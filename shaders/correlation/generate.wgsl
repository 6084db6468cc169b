// The study's generator (K1) and its common factors (K0), as src/main/workloads/correlation/walks.ts
// makes them on the CPU, bit for bit: every product q·e is exact in f32, so each factor is one
// correctly rounded addition and each step one or two correctly rounded multiplications.
// K1: one invocation per series walks its n samples (WG invocations per workgroup: the study's
// 1024, 64 or 32). Traffic: writes 4 bytes per sample, reads one common factor per sample.
#include "correlation/philox"

struct GenParams {
  series: u32,   // series of this band
  n: u32,
  s0: u32,       // the band's first series
  seed: u32,
  e: u32,        // E = e · 2^−p
  shift: u32,    // 15 + p: a step is q · e · 2^−shift
  start: f32,    // V
  _pad: u32,
}

@group(0) @binding(0) var<uniform> gp: GenParams;
@group(0) @binding(1) var<storage, read_write> factors: array<f32>;
@group(0) @binding(2) var<storage, read> disturbed: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

const COMMON_STREAM: u32 = 0xffffffffu;

fn factor(q: i32, shift: u32) -> f32 {
  return 1.0 + f32(q * i32(gp.e)) * ldexp(1.0, -i32(shift));
}

override WG: u32 = 64u;

// K0: the phenomenon's factor of every sample index (index 0 has none).
@compute @workgroup_size(64)
fn common_factors(@builtin(global_invocation_id) gid: vec3<u32>) {
  let k = gid.x;
  if (k >= gp.n) {
    return;
  }
  if (k == 0u) {
    factors[0] = 1.0;
    return;
  }
  let words = philox4x32(vec4<u32>(k >> 3u, COMMON_STREAM, 0u, 0u), vec2<u32>(gp.seed, 0u));
  factors[k] = factor(draw(words, k & 7u), gp.shift);
}

// K1: series gp.s0 + gid.x, written at row gid.x of this band's output. Every invocation walks the
// phenomenon itself: a running product cannot be shared bit for bit any cheaper.
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row = gid.x;
  if (row >= gp.series) {
    return;
  }
  let s = gp.s0 + row;
  let disturbed_series = disturbed[s] != 0u;
  var p = gp.start;
  var drift = 1.0;
  let base = row * gp.n;
  out[base] = p;
  var words = vec4<u32>(0u);
  for (var k = 1u; k < gp.n; k++) {
    if (k == 1u || (k & 7u) == 0u) {
      words = philox4x32(vec4<u32>(k >> 3u, s, 0u, 0u), vec2<u32>(gp.seed, 0u));
    }
    p = p * factors[k];
    let f = factor(draw(words, k & 7u), gp.shift);
    if (disturbed_series) {
      drift = drift * f;
      out[base + k] = p * drift;
    } else {
      out[base + k] = p * f;
    }
  }
}
