// Column statistics, sums part: the one pass over every value, and the total of its sums.
//
// scan: each workgroup walks tiles of WG × PER_THREAD values (grid-stride over tiles). Per value:
// the sum term (x, or (x − mean)²), and the place of the value against the bracket set by
// `sample` or `start` (tested on the key of x); the selection keys of the values inside the
// bracket are appended to `candidates` (up to capacity), so that selection goes on over those
// few instead of the whole column. One global atomic per tile reserves a workgroup's place
// there. Each workgroup writes one partial sum and adds its counts to the state.
// combine: one workgroup adds the partials into state.sum.

const PER_THREAD = 8u;

var<workgroup> red: array<Sum, WG>;
var<workgroup> tile_count: atomic<u32>;
var<workgroup> tile_base: u32;
var<workgroup> group_below: atomic<u32>;
var<workgroup> group_inside: atomic<u32>;
var<workgroup> group_nonfinite: atomic<u32>;

fn reduce_sum(s: Sum, lid: u32) -> Sum {
  red[lid] = s;
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half >>= 1u) {
    if lid < half { red[lid] = sum_merge(red[lid], red[lid + half]); }
    workgroupBarrier();
  }
  return red[0];
}

// One value of the scan: its sum term, and its place against the bracket (bit j of `found` when inside).
fn visit(
  w: Word, j: u32, acc: ptr<function, Sum>, below: ptr<function, u32>, inside: ptr<function, u32>, nonfinite: ptr<function, u32>, found: ptr<function, u32>,
  inner_lo: vec2<u32>, inner_hi: vec2<u32>, outer_lo: vec2<u32>, outer_hi: vec2<u32>,
) {
  *nonfinite += select(0u, 1u, is_nonfinite(w));
  sum_add(acc, w);
  let x = value_key(w);
  if in_interval(x, inner_lo, inner_hi) {
    *below += 1u;
  } else if in_interval(x, outer_lo, outer_hi) {
    *inside += 1u;
    *found |= 1u << j;
  }
}

@compute @workgroup_size(WG)
fn scan(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let n = params.n;
  let inner_lo = state.inner_lo;
  let inner_hi = state.inner_hi;
  let outer_lo = state.outer_lo;
  let outer_hi = state.outer_hi;
  let tile_size = WG * PER_THREAD;
  let tiles = (n + tile_size - 1u) / tile_size;
  var acc = sum_empty();
  var below = 0u;
  var inside = 0u;
  var nonfinite = 0u;
  // Workgroup memory starts undefined (the software adapter does not zero it).
  if lid == 0u {
    atomicStore(&tile_count, 0u);
    atomicStore(&group_below, 0u);
    atomicStore(&group_inside, 0u);
    atomicStore(&group_nonfinite, 0u);
  }
  workgroupBarrier();
  for (var tile = wid.x; tile < tiles; tile += params.scan_groups) {
    let base = tile * tile_size;
    var found = 0u; // bit j: value j is inside the bracket
    if base + tile_size <= n {
      // A whole tile: every load is issued before any value's arithmetic, so that they are in
      // flight together (a guard per load would keep them one after another).
      var w: array<Word, PER_THREAD>;
      for (var j = 0u; j < PER_THREAD; j++) { w[j] = data[base + j * WG + lid]; }
      for (var j = 0u; j < PER_THREAD; j++) { visit(w[j], j, &acc, &below, &inside, &nonfinite, &found, inner_lo, inner_hi, outer_lo, outer_hi); }
    } else {
      for (var j = 0u; j < PER_THREAD; j++) {
        if base + j * WG + lid < n { visit(data[base + j * WG + lid], j, &acc, &below, &inside, &nonfinite, &found, inner_lo, inner_hi, outer_lo, outer_hi); }
      }
    }
    let mine = countOneBits(found);
    var offset = 0u;
    if mine != 0u { offset = atomicAdd(&tile_count, mine); }
    workgroupBarrier();
    if lid == 0u {
      let total = atomicLoad(&tile_count);
      var start = 0u;
      if total != 0u { start = atomicAdd(&state.candidates, total); }
      tile_base = start;
      atomicStore(&tile_count, 0u);
    }
    workgroupBarrier();
    // The few values inside are read again (from cache) rather than kept in registers.
    var at = tile_base + offset;
    for (var j = 0u; j < PER_THREAD; j++) {
      if ((found >> j) & 1u) != 0u {
        if at < params.capacity { candidates[at] = word_key(data[base + j * WG + lid]); }
        at += 1u;
      }
    }
  }
  let total = reduce_sum(acc, lid);
  if below != 0u { atomicAdd(&group_below, below); }
  if inside != 0u { atomicAdd(&group_inside, inside); }
  if nonfinite != 0u { atomicAdd(&group_nonfinite, nonfinite); }
  workgroupBarrier();
  if lid == 0u {
    store_partial(wid.x, total);
    let b = atomicLoad(&group_below);
    if b != 0u { atomicAdd(&state.below, b); }
    let c = atomicLoad(&group_inside);
    if c != 0u { atomicAdd(&state.inside, c); }
    let f = atomicLoad(&group_nonfinite);
    if f != 0u { atomicAdd(&state.nonfinite, f); }
  }
}

@compute @workgroup_size(WG)
fn combine(@builtin(local_invocation_index) lid: u32) {
  var acc = sum_empty();
  for (var g = lid; g < params.scan_groups; g += WG) {
    acc = sum_merge(acc, load_partial_for_total(g));
  }
  let total = reduce_sum(acc, lid);
  if lid == 0u { store_total(total); }
}
