// Cross-products, register-blocked: a 16 × 16 workgroup computes a 64 × 64 block, each invocation
// a 4 × 4 piece of it held in registers. Per step, 16 samples of the block's 64 + 64 rows are staged
// in workgroup memory (read as vec4); each invocation then loads 4 + 4 values per sample for
// 16 multiply-adds. Sums are plain f32 over each step, compensated across steps under COMP.
// FLOP: 2 per sample and output. Traffic: (rows_i + rows_j) × k × 4 bytes × blocks / 64.
#include "correlation/cross_common"

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

const BM: u32 = 64u; // block side
const KT: u32 = 16u; // samples per step
// [sample][row]: an invocation's 4 rows of one sample are adjacent.
var<workgroup> as_: array<f32, 1024>;
var<workgroup> bs: array<f32, 1024>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let id = group_id(wid, nwg);
  if (id >= params.blocks) {
    return;
  }
  let blk = block_of(id);
  let i0 = blk.x * BM;
  let j0 = blk.y * BM;
  let kv = params.k / 4u;
  // Each invocation stages one vec4 (4 samples of one row) of each side per step.
  let load_row = tid / 4u;
  let load_k = tid % 4u;
  // Function-scope variables start at zero.
  var hi: array<f32, 16>;
  var lo: array<f32, 16>;
  for (var k0 = 0u; k0 < kv; k0 += KT / 4u) {
    let va = a[(i0 + load_row) * kv + k0 + load_k];
    let vb = b[(j0 + load_row) * kv + k0 + load_k];
    for (var e = 0u; e < 4u; e++) {
      as_[(load_k * 4u + e) * BM + load_row] = va[e];
      bs[(load_k * 4u + e) * BM + load_row] = vb[e];
    }
    workgroupBarrier();
    // Zeroed here, each step: SwiftShader keeps a loop's array variable from the step before.
    var part: array<f32, 16>;
    for (var r = 0u; r < 16u; r++) {
      part[r] = 0.0;
    }
    for (var k = 0u; k < KT; k++) {
      let x = vec4<f32>(as_[k * BM + lid.y * 4u], as_[k * BM + lid.y * 4u + 1u], as_[k * BM + lid.y * 4u + 2u], as_[k * BM + lid.y * 4u + 3u]);
      let y = vec4<f32>(bs[k * BM + lid.x * 4u], bs[k * BM + lid.x * 4u + 1u], bs[k * BM + lid.x * 4u + 2u], bs[k * BM + lid.x * 4u + 3u]);
      for (var r = 0u; r < 4u; r++) {
        part[r * 4u] += x[r] * y.x;
        part[r * 4u + 1u] += x[r] * y.y;
        part[r * 4u + 2u] += x[r] * y.z;
        part[r * 4u + 3u] += x[r] * y.w;
      }
    }
    for (var r = 0u; r < 16u; r++) {
      let t = acc_add(vec2<f32>(hi[r], lo[r]), part[r]);
      hi[r] = t.x;
      lo[r] = t.y;
    }
    workgroupBarrier();
  }
  for (var r = 0u; r < 4u; r++) {
    for (var q = 0u; q < 4u; q++) {
      c[(i0 + lid.y * 4u + r) * params.stride_c + j0 + lid.x * 4u + q] = hi[r * 4u + q] + lo[r * 4u + q];
    }
  }
}
