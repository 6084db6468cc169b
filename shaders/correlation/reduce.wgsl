// A workgroup's tree reduction of accumulators in workgroup memory: log2(WG) halving steps, a
// barrier after each. Every invocation must call it (it holds barriers).
override WG: u32 = 256u; // a power of two

var<workgroup> partials: array<vec2<f32>, WG>;

fn reduce_workgroup(tid: u32, acc: vec2<f32>) -> vec2<f32> {
  partials[tid] = acc;
  workgroupBarrier();
  for (var step = WG / 2u; step > 0u; step = step / 2u) {
    if (tid < step) {
      partials[tid] = acc_merge(partials[tid], partials[tid + step]);
    }
    workgroupBarrier();
  }
  return partials[0];
}
