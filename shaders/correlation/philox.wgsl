// Philox 4×32-10, as src/main/workloads/correlation/philox.ts computes it: u32 arithmetic only,
// the 64-bit products from 16-bit halves, so every adapter gives the same words as the CPU.

fn mulhilo(a: u32, b: u32) -> vec2<u32> {
  let al = a & 0xffffu;
  let ah = a >> 16u;
  let bl = b & 0xffffu;
  let bh = b >> 16u;
  let ll = al * bl;
  let lh = al * bh;
  let hl = ah * bl;
  let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  let hi = ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
  let lo = (mid << 16u) | (ll & 0xffffu);
  return vec2<u32>(hi, lo);
}

fn philox4x32(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
  var c = counter;
  var k = key;
  for (var round = 0u; round < 10u; round++) {
    if (round > 0u) {
      k = k + vec2<u32>(0x9e3779b9u, 0xbb67ae85u);
    }
    let p0 = mulhilo(0xd2511f53u, c.x);
    let p1 = mulhilo(0xcd9e8d57u, c.z);
    c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
  }
  return c;
}

// The centred 16-bit draw j (0…7) of a block's four words: −32768…32767.
fn draw(words: vec4<u32>, j: u32) -> i32 {
  return i32((words[j >> 1u] >> (16u * (j & 1u))) & 0xffffu) - 32768;
}
