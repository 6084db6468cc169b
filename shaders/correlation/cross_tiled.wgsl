// Cross-products, tiled: a 16 × 16 workgroup computes a 16 × 16 block, staging 16 samples of its
// 16 + 16 rows in workgroup memory at a time, so each value read from memory serves 16 outputs.
// Sums are plain f32 over each tile of 16 samples, compensated across tiles under COMP.
// FLOP: 2 per sample and output. Traffic: (rows_i + rows_j) × k × 4 bytes × blocks / 16.
#include "correlation/cross_common"

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

const B: u32 = 16u;
var<workgroup> as_: array<f32, 256>; // [row][sample]
var<workgroup> bs: array<f32, 256>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let id = group_id(wid, nwg);
  if (id >= params.blocks) {
    return;
  }
  let blk = block_of(id);
  let i0 = blk.x * B;
  let j0 = blk.y * B;
  var acc = vec2<f32>(0.0, 0.0);
  for (var k0 = 0u; k0 < params.k; k0 += B) {
    as_[lid.y * B + lid.x] = a[(i0 + lid.y) * params.k + k0 + lid.x];
    bs[lid.y * B + lid.x] = b[(j0 + lid.y) * params.k + k0 + lid.x];
    workgroupBarrier();
    var part = 0.0;
    for (var k = 0u; k < B; k++) {
      part += as_[lid.y * B + k] * bs[lid.x * B + k];
    }
    acc = acc_add(acc, part);
    workgroupBarrier();
  }
  c[(i0 + lid.y) * params.stride_c + j0 + lid.x] = acc_value(acc);
}
