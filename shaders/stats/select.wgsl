// Column statistics, selection part: exact selection of the two middle order statistics by key,
// resident on the GPU (no host round trip between levels).
//
//   sample   sorts SAMPLE evenly spaced keys and brackets the middle ranks with them
//            (a column of at most SAMPLE values is sorted whole: the answer is known at once);
//   start    sets the deviation pass's bracket, which the host derives from that sample;
//   scan     (sums.wgsl) counts keys under / inside the bracket and keeps the inside ones;
//   bracket  places each target in the bracket, or in the key range beside it when the sample
//            misled (then the levels read the whole column instead of the candidates);
//   refine   one level: a histogram of BINS slices of each target's range, and the range's
//            smallest and largest key (per workgroup, in `slots`);
//   pick     finds the slice holding each target's rank, and shrinks the range to that slice
//            and to [smallest, largest]; a range of one key is the answer.
// Each level divides a range by 2^RADIX_BITS, so 6 levels finish any 64-bit range; equal keys
// (ties) finish as soon as a range holds no other key. Levels after both targets are known
// return at once. Grids are fixed by the host: indirect dispatches, sized here, were slower.
// The deviation pass selects on keys of |x − median|, computed as the scan and the levels
// read x (f64.wgsl, f32.wgsl).

const SAMPLE = 2048u;
// Sample ranks kept on each side of the middle: ±4.2 standard deviations of a sample rank,
// about 9 % of the column in the bracket.
const MARGIN = 96u;

var<workgroup> sample_keys: array<vec2<u32>, SAMPLE>;

// ---- sample ----

override SAMPLE_WG: u32 = 256u; // threads of `sample`, a power of two ≤ SAMPLE / 2

// Resets the counters and places both targets before the scan, with the bracket [lo, hi] of
// selection keys. `exact`: the sample was the whole column and a, b are the answers.
fn start_selection(n: u32, lo: vec2<u32>, hi: vec2<u32>, exact: bool, a: vec2<u32>, b: vec2<u32>) {
  atomicStore(&state.below, 0u);
  atomicStore(&state.inside, 0u);
  atomicStore(&state.candidates, 0u);
  atomicStore(&state.nonfinite, 0u);
  state.compacted = 0u;
  state.error = 0u;
  state.bracket_lo = lo;
  state.bracket_hi = hi;
  let done = select(0u, 1u, exact);
  state.targets[0] = Target(ZERO64, MAX_KEY, (n - 1u) / 2u, done, a);
  state.targets[1] = Target(ZERO64, MAX_KEY, n / 2u, done, b);
}

// The sample rank standing for column rank r.
fn sample_rank(r: u32, m: u32, n: u32) -> u32 {
  return min(u32(f32(r) * f32(m) / f32(n)), m - 1u);
}

@compute @workgroup_size(SAMPLE_WG)
fn sample(@builtin(local_invocation_index) lid: u32) {
  let n = params.n;
  let m = min(n, SAMPLE);
  let step = n / SAMPLE;
  let rem = n % SAMPLE;
  for (var q = lid; q < SAMPLE; q += SAMPLE_WG) {
    var k = MAX_KEY;
    if q < m {
      var i = q;
      // About (q + ½) · n / SAMPLE, without overflowing u32.
      if n > SAMPLE { i = q * step + (q * rem + rem / 2u) / SAMPLE + step / 2u; }
      k = value_key(data[i]);
    }
    sample_keys[q] = k;
  }
  workgroupBarrier();
  // Bitonic sort, ascending.
  for (var size = 2u; size <= SAMPLE; size <<= 1u) {
    for (var stride = size >> 1u; stride > 0u; stride >>= 1u) {
      for (var p = lid; p < SAMPLE / 2u; p += SAMPLE_WG) {
        let i = 2u * stride * (p / stride) + p % stride;
        let j = i + stride;
        let a = sample_keys[i];
        let b = sample_keys[j];
        if lt64(b, a) == ((i & size) == 0u) {
          sample_keys[i] = b;
          sample_keys[j] = a;
        }
      }
      workgroupBarrier();
    }
  }
  for (var q = lid; q < SAMPLE; q += SAMPLE_WG) { sorted_sample[q] = sample_keys[q]; }
  if lid == 0u {
    let ra = (n - 1u) / 2u;
    let rb = n / 2u;
    var lo = ZERO64;
    var hi = MAX_KEY;
    if m == n {
      lo = sample_keys[ra];
      hi = sample_keys[rb];
    } else {
      // An edge of the sample leaves that side of the bracket open.
      let qa = sample_rank(ra, m, n);
      let qb = sample_rank(rb, m, n);
      if qa >= MARGIN { lo = sample_keys[qa - MARGIN]; }
      if qb + MARGIN < m { hi = sample_keys[qb + MARGIN]; }
    }
    start_selection(n, lo, hi, m == n, lo, hi);
    // Keys under lo are below the bracket, keys up to hi below or inside.
    if all(lo == ZERO64) {
      state.inner_lo = ONE64;
      state.inner_hi = ZERO64;
    } else {
      state.inner_lo = ZERO64;
      state.inner_hi = sub64(lo, ONE64);
    }
    state.outer_lo = ZERO64;
    state.outer_hi = hi;
  }
}

// ---- start: the deviation pass's bracket, set by the host ----
//
// The host brackets the middle deviations from the values pass's sorted sample (read back with
// the median) and turns the bracket into the two x-key intervals the scan tests.

@compute @workgroup_size(1)
fn start() {
  let exact = params.exact != 0u;
  start_selection(params.n, params.bracket_lo, params.bracket_hi, exact, params.bracket_lo, params.bracket_hi);
  state.inner_lo = params.inner_lo;
  state.inner_hi = params.inner_hi;
  state.outer_lo = params.outer_lo;
  state.outer_hi = params.outer_hi;
}

// ---- bracket ----

@compute @workgroup_size(1)
fn bracket() {
  let below = atomicLoad(&state.below);
  let inside = atomicLoad(&state.inside);
  var all_inside = true;
  for (var j = 0u; j < 2u; j++) {
    var t = state.targets[j];
    if t.done != 0u { continue; }
    if t.rank < below {
      t.lo = ZERO64;
      t.hi = sub64(state.bracket_lo, ONE64);
      all_inside = false;
    } else if t.rank - below < inside {
      t.lo = state.bracket_lo;
      t.hi = state.bracket_hi;
      t.rank -= below;
    } else {
      t.lo = add64(state.bracket_hi, ONE64);
      t.hi = MAX_KEY;
      t.rank -= below + inside;
      all_inside = false;
    }
    state.targets[j] = t;
  }
  state.compacted = select(0u, 1u, all_inside && inside <= params.capacity);
}

// ---- one level: refine, then pick ----

var<workgroup> level_flags: u32;
var<workgroup> level_count: u32;
var<workgroup> level_hist: array<atomic<u32>, 4096>; // 2 × BINS
var<workgroup> lows: array<vec4<u32>, WG>; // smallest keys of targets 0 and 1
var<workgroup> highs: array<vec4<u32>, WG>; // largest keys

// Bit 0/1: target 0/1 done; bit 2: read the candidates; bit 3: both targets share one range
// (then target 0's histogram and bounds serve both).
fn read_level_flags() -> u32 {
  let t0 = state.targets[0];
  let t1 = state.targets[1];
  var f = t0.done | (t1.done << 1u) | (state.compacted << 2u);
  if t0.done == 0u && t1.done == 0u && all(t0.lo == t1.lo) && all(t0.hi == t1.hi) { f |= 8u; }
  return f;
}

// Smallest and largest key over the workgroup, for both targets at once.
fn reduce_bounds(lid: u32, lo: vec4<u32>, hi: vec4<u32>) {
  lows[lid] = lo;
  highs[lid] = hi;
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half >>= 1u) {
    if lid < half {
      let a = lows[lid];
      let b = lows[lid + half];
      lows[lid] = vec4<u32>(min64(a.xy, b.xy), min64(a.zw, b.zw));
      let c = highs[lid];
      let d = highs[lid + half];
      highs[lid] = vec4<u32>(max64(c.xy, d.xy), max64(c.zw, d.zw));
    }
    workgroupBarrier();
  }
}

@compute @workgroup_size(WG)
fn refine(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  if lid == 0u {
    level_flags = read_level_flags();
    // Read once per workgroup: an atomic load from every thread would queue at one address.
    level_count = atomicLoad(&state.candidates);
  }
  // Workgroup memory starts undefined (the software adapter does not zero it); the barrier of
  // workgroupUniformLoad orders these stores before the counts.
  for (var b = lid; b < 2u * BINS; b += WG) { atomicStore(&level_hist[b], 0u); }
  let flags = workgroupUniformLoad(&level_flags);
  if (flags & 3u) == 3u { return; }
  let t0 = state.targets[0];
  let t1 = state.targets[1];
  let on0 = (flags & 1u) == 0u;
  let on1 = (flags & 2u) == 0u && (flags & 8u) == 0u;
  let s0 = range_shift(t0);
  let s1 = range_shift(t1);
  let from_candidates = (flags & 4u) != 0u;
  var count = params.n;
  if from_candidates { count = level_count; }
  var lo = vec4<u32>(MAX_KEY, MAX_KEY);
  var hi = vec4<u32>(0u);
  let stride = nwg.x * WG;
  // Runs of keys in one bin go in with one atomic: ties would otherwise all hit one counter.
  var run0 = 0u;
  var count0 = 0u;
  var run1 = 0u;
  var count1 = 0u;
  for (var i = wid.x * WG + lid; i < count; i += stride) {
    var k: vec2<u32>;
    if from_candidates {
      k = candidates[i];
    } else {
      k = word_key(data[i]);
    }
    if on0 && in_range(k, t0) {
      let bin = shr64(sub64(k, t0.lo), s0).x;
      if bin != run0 {
        if count0 != 0u { atomicAdd(&level_hist[run0], count0); }
        run0 = bin;
        count0 = 0u;
      }
      count0 += 1u;
      lo = vec4<u32>(min64(lo.xy, k), lo.zw);
      hi = vec4<u32>(max64(hi.xy, k), hi.zw);
    }
    if on1 && in_range(k, t1) {
      let bin = BINS + shr64(sub64(k, t1.lo), s1).x;
      if bin != run1 {
        if count1 != 0u { atomicAdd(&level_hist[run1], count1); }
        run1 = bin;
        count1 = 0u;
      }
      count1 += 1u;
      lo = vec4<u32>(lo.xy, min64(lo.zw, k));
      hi = vec4<u32>(hi.xy, max64(hi.zw, k));
    }
  }
  if count0 != 0u { atomicAdd(&level_hist[run0], count0); }
  if count1 != 0u { atomicAdd(&level_hist[run1], count1); }
  workgroupBarrier();
  for (var b = lid; b < 2u * BINS; b += WG) {
    let c = atomicLoad(&level_hist[b]);
    if c != 0u { atomicAdd(&hist[b], c); }
  }
  reduce_bounds(lid, lo, hi);
  if lid == 0u {
    slots[2u * wid.x] = vec4<u32>(lows[0].xy, highs[0].xy);
    slots[2u * wid.x + 1u] = vec4<u32>(lows[0].zw, highs[0].zw);
  }
}

var<workgroup> prefix: array<u32, WG>;
var<workgroup> found_bin: u32;
var<workgroup> found_below: u32;

const PICK_NONE = 0xffffffffu;

@compute @workgroup_size(WG)
fn pick(@builtin(local_invocation_index) lid: u32) {
  if lid == 0u { level_flags = read_level_flags(); }
  let flags = workgroupUniformLoad(&level_flags);
  if (flags & 3u) == 3u { return; }
  let per_thread = BINS / WG;
  let groups = params.refine_groups; // the refine workgroups that wrote slots
  for (var j = 0u; j < 2u; j++) {
    if ((flags >> j) & 1u) != 0u { continue; }
    let src = select(j, 0u, (flags & 8u) != 0u);
    let t = state.targets[j];
    if lid == 0u { found_bin = PICK_NONE; }
    // The thread whose run of bins holds the rank finds the bin.
    var own = 0u;
    for (var q = 0u; q < per_thread; q++) { own += atomicLoad(&hist[src * BINS + lid * per_thread + q]); }
    prefix[lid] = own;
    workgroupBarrier();
    for (var d = 1u; d < WG; d <<= 1u) {
      var v = prefix[lid];
      if lid >= d { v += prefix[lid - d]; }
      workgroupBarrier();
      prefix[lid] = v;
      workgroupBarrier();
    }
    let before = prefix[lid] - own;
    if t.rank >= before && t.rank < before + own {
      var below = before;
      var bin = lid * per_thread;
      loop {
        let c = atomicLoad(&hist[src * BINS + bin]);
        if below + c > t.rank { break; }
        below += c;
        bin += 1u;
      }
      found_bin = bin;
      found_below = below;
    }
    var lo = vec4<u32>(MAX_KEY, MAX_KEY);
    var hi = vec4<u32>(0u);
    for (var g = lid; g < groups; g += WG) {
      let s = slots[2u * g + src];
      lo = vec4<u32>(min64(lo.xy, s.xy), lo.zw);
      hi = vec4<u32>(max64(hi.xy, s.zw), hi.zw);
    }
    reduce_bounds(lid, lo, hi);
    if lid == 0u {
      if found_bin == PICK_NONE {
        // The histogram holds fewer keys than the rank: a broken invariant, reported to the host.
        state.error = 1u + j;
        state.targets[j].done = 1u;
      } else {
        let shift = range_shift(t);
        var a = add64(t.lo, shl64(vec2<u32>(found_bin, 0u), shift));
        var b = add64(a, min64(sub64(shl64(ONE64, shift), ONE64), sub64(t.hi, a)));
        a = max64(a, lows[0].xy);
        b = min64(b, highs[0].xy);
        state.targets[j].lo = a;
        state.targets[j].hi = b;
        state.targets[j].rank = t.rank - found_below;
        if all(a == b) {
          state.targets[j].done = 1u;
          state.targets[j].key = a;
        }
      }
    }
    workgroupBarrier();
  }
  for (var b = lid; b < 2u * BINS; b += WG) { atomicStore(&hist[b], 0u); }
}
