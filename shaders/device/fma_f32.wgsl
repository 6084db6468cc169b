// f32 FMA throughput: each thread runs 8 independent vec4 fma chains (32 scalar chains, enough
// to hide FMA latency), ITERS trips of 2 fmas per chain: 64 scalar fmas = 128 FLOP per trip.
// a and b come from a uniform so the compiler cannot fold the chains.

override WG: u32 = 256;     // threads per workgroup
override ITERS: u32 = 1024; // loop trips per thread

struct Params {
  a: vec4<f32>,
  b: vec4<f32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let a = params.a;
  let b = params.b;
  // Small integer seeds (t < 1024) keep every value exact in f32 for the host's check.
  let t = f32(gid.x & 1023u);
  var x0 = vec4<f32>(t, t + 1.0, t + 2.0, t + 3.0);
  var x1 = x0 + 4.0;
  var x2 = x0 + 8.0;
  var x3 = x0 + 12.0;
  var x4 = x0 + 16.0;
  var x5 = x0 + 20.0;
  var x6 = x0 + 24.0;
  var x7 = x0 + 28.0;
  for (var i = 0u; i < ITERS; i++) {
    x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
    x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
    x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
    x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
  }
  out[gid.x] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
}
