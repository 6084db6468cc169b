// Memory read bandwidth: every workgroup sums a grid-strided share of `data` and writes one
// partial. Each trip issues LOADS independent vec4 loads (4 or 8, into named accumulators) before
// any of their adds, so that enough requests are in flight to saturate HBM.
// Launch with a 1-D grid; the host sums `partials`.

override WG: u32 = 256; // threads per workgroup; a power of two
override LOADS: u32 = 4; // vec4 loads in flight per trip: 4 or 8

@group(0) @binding(0) var<storage, read> data: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;

var<workgroup> scratch: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = arrayLength(&data);
  let stride = nwg.x * WG;
  var i = wid.x * WG + lid;
  var s0 = vec4<f32>(0.0);
  var s1 = vec4<f32>(0.0);
  var s2 = vec4<f32>(0.0);
  var s3 = vec4<f32>(0.0);
  var s4 = vec4<f32>(0.0);
  var s5 = vec4<f32>(0.0);
  var s6 = vec4<f32>(0.0);
  var s7 = vec4<f32>(0.0);
  // Compared by subtraction so that i + (LOADS − 1) · stride cannot overflow u32.
  loop {
    if (i >= n || n - i <= (LOADS - 1u) * stride) { break; }
    let v0 = data[i];
    let v1 = data[i + stride];
    let v2 = data[i + 2u * stride];
    let v3 = data[i + 3u * stride];
    if (LOADS == 8u) {
      let v4 = data[i + 4u * stride];
      let v5 = data[i + 5u * stride];
      let v6 = data[i + 6u * stride];
      let v7 = data[i + 7u * stride];
      s4 += v4;
      s5 += v5;
      s6 += v6;
      s7 += v7;
    }
    s0 += v0;
    s1 += v1;
    s2 += v2;
    s3 += v3;
    i += LOADS * stride;
  }
  for (; i < n; i += stride) {
    s0 += data[i];
  }
  let s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
  scratch[lid] = (s.x + s.y) + (s.z + s.w);
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half /= 2u) {
    if (lid < half) {
      scratch[lid] += scratch[lid + half];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    partials[wid.x] = scratch[0];
  }
}
