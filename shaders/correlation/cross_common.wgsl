// Cross-products, common part: which block of the pair's output a workgroup computes. Over a
// rectangle (two bands) the blocks go row by row; over one band only blocks on or above the
// diagonal (bi ≤ bj) are dispatched: the upper triangle, half the work.
#include "correlation/common"

@group(0) @binding(3) var<uniform> params: Params;

// Block (bi, bj) of workgroup `id` < params.blocks.
fn block_of(id: u32) -> vec2<u32> {
  if (params.diag == 0u) {
    return vec2<u32>(id / params.blocks_j, id % params.blocks_j);
  }
  // Column bj holds blocks bi = 0 … bj, after bj (bj + 1) / 2 others.
  var bj = u32((sqrt(8.0 * f32(id) + 1.0) - 1.0) * 0.5);
  loop {
    if (bj * (bj + 1u) / 2u <= id) { break; }
    bj -= 1u;
  }
  loop {
    if ((bj + 1u) * (bj + 2u) / 2u > id) { break; }
    bj += 1u;
  }
  return vec2<u32>(id - bj * (bj + 1u) / 2u, bj);
}
