// Memory read bandwidth: every workgroup sums a grid-strided share of `data` and writes one
// partial. Four loads per trip keep enough requests in flight to saturate HBM.
// Launch with a 1-D grid; the host sums `partials`.

override WG: u32 = 256; // threads per workgroup; a power of two

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
  // Compared by subtraction so that i + 3 * stride cannot overflow u32.
  loop {
    if (i >= n || n - i <= 3u * stride) { break; }
    s0 += data[i];
    s1 += data[i + stride];
    s2 += data[i + 2u * stride];
    s3 += data[i + 3u * stride];
    i += 4u * stride;
  }
  for (; i < n; i += stride) {
    s0 += data[i];
  }
  let s = (s0 + s1) + (s2 + s3);
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
