// One dispatch per k, one invocation per cell (or CELLS cells): the study's first three steps.
//   baseline   COALESCED = false: neighbouring invocations take neighbouring rows, so their
//              accesses lie a row apart
//   coalesced  neighbouring invocations take neighbouring columns: one transaction per 16
//   unrolled   CELLS columns per invocation, 16 apart, d[i][k] loaded once for them
// Row k and column k do not change in step k (d[k][k] = 0), so the invocations do not race.
#include "paths/common"

override COALESCED: bool = true;
override CELLS: u32 = 1;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let k = p.k;
  var i: u32;
  var j0: u32;
  if (COALESCED) {
    i = wid.y * 16u + lid.y;
    j0 = wid.x * 16u * CELLS + lid.x;
  } else {
    i = wid.x * 16u + lid.x;
    j0 = wid.y * 16u * CELLS + lid.y;
  }
  let dik = dGet(i, k);
  var kik = 0u;
  if (PATHS) {
    kik = kGet(i, k);
  }
  for (var c = 0u; c < CELLS; c++) {
    let j = j0 + c * 16u;
    let s = plus(dik, dGet(k, j));
    let cur = dGet(i, j);
    if (PATHS) {
      if (s <= cur) {
        let kc = compose(kik, kGet(k, j));
        if (better(s, kc, cur, kGet(i, j))) {
          dSet(i, j, s);
          kSet(i, j, kc);
        }
      }
    } else if (s < cur) {
      dSet(i, j, s);
    }
  }
}
