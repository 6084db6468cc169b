// Phase 3 without successors when the block rows are spread over devices (bands.wgsl): minplus.wgsl's
// min-plus product of 4 × 4 cells an invocation in named vec4, with the tile's rows (C and A) this
// device's own, by local row, and the pivot's rows (B) in the pivot block row pv (64 × n) that the
// round's owner sent. Same relaxations in the same order as minplus.wgsl, so the same bits.
#include "paths/params"

@group(0) @binding(0) var<storage, read_write> d0: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read_write> d1: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> d2: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> d3: array<vec4<i32>>;
@group(0) @binding(8) var<uniform> p: Params;
@group(0) @binding(9) var<storage, read_write> pv: array<vec4<i32>>;

struct Part {
  // First local row of this dispatch's tiles, from the start of binding TILE_BAND.
  first: u32,
  // A block row left out (the next round's pivot, relaxed first), or none.
  skip: u32,
  // The global row of this device's local row 0.
  row0: u32,
}
@group(0) @binding(11) var<uniform> part: Part;

const ROUND_K: u32 = 64u;

override TX: u32 = 16u;
override TY: u32 = 16u;
override KC: u32 = 16u;
// The binding of this dispatch's tiles (one dispatch and pipeline per binding, as in minplus.wgsl).
override TILE_BAND: u32 = 0u;

var<workgroup> as4: array<vec4<i32>, KC * TY>;
var<workgroup> bs4: array<vec4<i32>, KC * TX>;

fn load4(at: u32) -> vec4<i32> {
  switch TILE_BAND {
    case 0u: { return d0[at]; }
    case 1u: { return d1[at]; }
    case 2u: { return d2[at]; }
    default: { return d3[at]; }
  }
}

fn store4(at: u32, v: vec4<i32>) {
  switch TILE_BAND {
    case 0u: { d0[at] = v; }
    case 1u: { d1[at] = v; }
    case 2u: { d2[at] = v; }
    default: { d3[at] = v; }
  }
}

// The vec4 of cells (i, 4·c4 …) of local row i of this dispatch's binding.
fn tile4(i: u32, c4: u32) -> u32 {
  return (i - TILE_BAND * BAND_ROWS) * (p.n / 4u) + c4;
}

@compute @workgroup_size(TX, TY)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
  let k0 = p.k * ROUND_K;
  let r0 = TILE_BAND * BAND_ROWS + part.first + wid.y * TY * 4u; // local; TILE_BAND is 0 with one binding
  let c0 = wid.x * TX * 4u;
  let g = (part.row0 + r0) / ROUND_K;
  if (g == p.k || g == part.skip || c0 / ROUND_K == p.k) {
    return;
  }
  let row = r0 + 4u * lid.y;
  let col4 = c0 / 4u + lid.x;
  var acc0 = load4(tile4(row, col4));
  var acc1 = load4(tile4(row + 1u, col4));
  var acc2 = load4(tile4(row + 2u, col4));
  var acc3 = load4(tile4(row + 3u, col4));

  let k4s = KC / 4u;
  for (var kc = 0u; kc < ROUND_K; kc += KC) {
    if (kc > 0u) {
      workgroupBarrier();
    }
    // A as in minplus.wgsl: 4 rows × 4 values of k a unit, stored transposed.
    for (var u = tid; u < KC * TY / 4u; u += TX * TY) {
      let rest = u / 8u;
      let k4 = rest % k4s;
      let gr = (rest / k4s) * 8u + u % 8u;
      let r = r0 + 4u * gr;
      let c = (k0 + kc) / 4u + k4;
      let v0 = load4(tile4(r, c));
      let v1 = load4(tile4(r + 1u, c));
      let v2 = load4(tile4(r + 2u, c));
      let v3 = load4(tile4(r + 3u, c));
      let at = 4u * k4 * TY + gr;
      as4[at] = vec4<i32>(v0.x, v1.x, v2.x, v3.x);
      as4[at + TY] = vec4<i32>(v0.y, v1.y, v2.y, v3.y);
      as4[at + 2u * TY] = vec4<i32>(v0.z, v1.z, v2.z, v3.z);
      as4[at + 3u * TY] = vec4<i32>(v0.w, v1.w, v2.w, v3.w);
    }
    // B: rows kc … of the pivot block row, the tile's columns.
    for (var u = tid; u < KC * TX; u += TX * TY) {
      bs4[u] = pv[(kc + u / TX) * (p.n / 4u) + c0 / 4u + u % TX];
    }
    workgroupBarrier();

    for (var k = 0u; k < KC; k++) {
      let a = as4[k * TY + lid.y];
      let b = bs4[k * TX + lid.x];
      acc0 = min(acc0, plus4(vec4<i32>(a.x), b));
      acc1 = min(acc1, plus4(vec4<i32>(a.y), b));
      acc2 = min(acc2, plus4(vec4<i32>(a.z), b));
      acc3 = min(acc3, plus4(vec4<i32>(a.w), b));
    }
  }

  store4(tile4(row, col4), acc0);
  store4(tile4(row + 1u, col4), acc1);
  store4(tile4(row + 2u, col4), acc2);
  store4(tile4(row + 3u, col4), acc3);
}
