// Cross-products, register-blocked as a tuned SGEMM (C = D Dᵀ of one band pair): a workgroup of
// WX × WY invocations computes a B × B block, each invocation TM × TN outputs held in registers.
// An invocation's rows are TM/4 runs of 4 adjacent rows, WY·4 apart (its columns likewise), so that
// its reads of workgroup memory are vec4 and a warp's reads are broadcasts or consecutive vec4.
// Per step, BK samples of the block's B + B rows are loaded as vec4 along the samples (coalesced),
// transposed into workgroup memory as [sample][row] (rows padded by one vec4 so that the scalar
// stores of a step spread over the banks), in two buffers: the next step's loads are issued before
// this step's multiply-adds and stored after them, one barrier a step.
// Sums: fma in plain f32 over CHUNK_STEPS steps, then under COMP added to a compensated sum (TwoSum),
// so compensation costs ~7 operations per CHUNK_STEPS·BK multiply-adds (see gpu/register-shapes.ts).
// The shape is chosen by the overrides; register arrays are sized for the largest (8 × 8, 4 loads).
// FLOP: 2 per sample and output. Traffic: (rows_i + rows_j) × k × 4 bytes × blocks / B.
#include "correlation/cross_common"

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;

override TM: u32 = 8u; // rows per invocation: 4 or 8
override TN: u32 = 8u; // columns per invocation: 4 or 8
override WX: u32 = 16u; // invocations along j: B = WX · TN
override WY: u32 = 16u; // invocations along i: B = WY · TM
override BK: u32 = 8u; // samples per step: 4, 8, 16 or 32
override CHUNK_STEPS: u32 = 4u; // steps summed plainly between compensated additions

override B: u32 = WX * TN;
override S4: u32 = B / 4u + 1u; // vec4 per sample in workgroup memory (B rows, padded)
override TILE4: u32 = BK * S4; // vec4 of one buffer of one side
override WG_VEC4: u32 = 2u * BK * (B / 4u + 1u); // two buffers
override LOADS: u32 = B * BK / 4u; // vec4 per side per step
override THREADS: u32 = WX * WY;
override LOADS_PER: u32 = max(1u, LOADS / THREADS); // vec4 per invocation per side (≤ 4), fewer threads loading when < 1

var<workgroup> as_: array<vec4<f32>, WG_VEC4>;
var<workgroup> bs: array<vec4<f32>, WG_VEC4>;

@compute @workgroup_size(WX, WY)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let id = group_id(wid, nwg);
  if (id >= params.blocks) {
    return;
  }
  let blk = block_of(id);
  let i0 = blk.x * B;
  let j0 = blk.y * B;
  let kv = params.k / 4u;
  let steps = params.k / BK;
  let kq4 = BK / 4u; // vec4 per row per step

  // acc[r · TN/4 + q]: row r of the invocation, columns 4q … 4q + 3 of its run q.
  var acc: array<vec4<f32>, 16>;
  var hi: array<vec4<f32>, 16>;
  var lo: array<vec4<f32>, 16>;
  for (var x = 0u; x < 16u; x++) {
    acc[x] = vec4<f32>(0.0);
    hi[x] = vec4<f32>(0.0);
    lo[x] = vec4<f32>(0.0);
  }
  // This invocation's share of a step's loads, vec4 l = tid + THREADS · u: row l / kq4, vec4 l % kq4
  // (consecutive invocations read consecutive vec4 of a row, then the next row).
  var pa: array<vec4<f32>, 4>;
  var pb: array<vec4<f32>, 4>;
  for (var u = 0u; u < LOADS_PER; u++) {
    let l = tid + u * THREADS;
    if (l < LOADS) {
      pa[u] = a[(i0 + l / kq4) * kv + l % kq4];
      pb[u] = b[(j0 + l / kq4) * kv + l % kq4];
    }
  }
  for (var u = 0u; u < LOADS_PER; u++) {
    let l = tid + u * THREADS;
    if (l < LOADS) {
      let row = l / kq4;
      let k = (l % kq4) * 4u;
      for (var e = 0u; e < 4u; e++) {
        as_[(k + e) * S4 + row / 4u][row % 4u] = pa[u][e];
        bs[(k + e) * S4 + row / 4u][row % 4u] = pb[u][e];
      }
    }
  }
  workgroupBarrier();

  for (var s = 0u; s < steps; s++) {
    let cur = (s % 2u) * TILE4;
    let more = s + 1u < steps;
    if (more) {
      let k0 = (s + 1u) * kq4;
      for (var u = 0u; u < LOADS_PER; u++) {
        let l = tid + u * THREADS;
        if (l < LOADS) {
          pa[u] = a[(i0 + l / kq4) * kv + k0 + l % kq4];
          pb[u] = b[(j0 + l / kq4) * kv + k0 + l % kq4];
        }
      }
    }
    for (var k = 0u; k < BK; k++) {
      var fb: array<vec4<f32>, 2>;
      for (var q = 0u; q < TN / 4u; q++) {
        fb[q] = bs[cur + k * S4 + q * WX + lid.x];
      }
      // Rows 4g … 4g + 3 of the invocation: acc[(4g + e) · TN/4 + q].
      for (var g = 0u; g < TM / 4u; g++) {
        let x = as_[cur + k * S4 + g * WY + lid.y];
        for (var q = 0u; q < TN / 4u; q++) {
          let at = g * TN + q;
          acc[at] = fma(vec4<f32>(x.x), fb[q], acc[at]);
          acc[at + TN / 4u] = fma(vec4<f32>(x.y), fb[q], acc[at + TN / 4u]);
          acc[at + TN / 2u] = fma(vec4<f32>(x.z), fb[q], acc[at + TN / 2u]);
          acc[at + 3u * TN / 4u] = fma(vec4<f32>(x.w), fb[q], acc[at + 3u * TN / 4u]);
        }
      }
    }
    if (more) {
      let nxt = (1u - s % 2u) * TILE4;
      for (var u = 0u; u < LOADS_PER; u++) {
        let l = tid + u * THREADS;
        if (l < LOADS) {
          let row = l / kq4;
          let k = (l % kq4) * 4u;
          for (var e = 0u; e < 4u; e++) {
            as_[nxt + (k + e) * S4 + row / 4u][row % 4u] = pa[u][e];
            bs[nxt + (k + e) * S4 + row / 4u][row % 4u] = pb[u][e];
          }
        }
      }
    }
    if (COMP && ((s + 1u) % CHUNK_STEPS == 0u || !more)) {
      // hi + acc by TwoSum, its error into lo.
      for (var x = 0u; x < TM * TN / 4u; x++) {
        let sum = hi[x] + acc[x];
        let bb = sum - hi[x];
        lo[x] += (hi[x] - (sum - bb)) + (acc[x] - bb);
        hi[x] = sum;
        acc[x] = vec4<f32>(0.0);
      }
    }
    workgroupBarrier();
  }

  let stride4 = params.stride_c / 4u;
  for (var r = 0u; r < TM; r++) {
    let row = i0 + (r / 4u) * WY * 4u + lid.y * 4u + r % 4u;
    for (var q = 0u; q < TN / 4u; q++) {
      var v = acc[r * (TN / 4u) + q];
      if (COMP) {
        v = hi[r * (TN / 4u) + q] + lo[r * (TN / 4u) + q];
      }
      c[row * stride4 + j0 / 4u + q * WX + lid.x] = v;
    }
  }
}
