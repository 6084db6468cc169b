// WebAssembly SIMD128 block kernels of blocked Floyd–Warshall: what src/main/workloads/paths/js-kernels.ts
// computes, four columns at a time (i32x4 add and min). The matrix has row stride S (a multiple of 4)
// in the one shared memory the host lays out (simd/wasm-module.ts); j0 and j1 are multiples of 4.
// Path keys (the `Paths` kernels): among equal distances the smaller key wins; a key composes as
// key(i, k) + (key(k, j) & 0xffff0000), saturated at 0xffffffff (see matrix.ts).

const HOPS: u32 = 0xffff0000

@inline function at(base: usize, row: i32, S: i32, col: i32): usize {
  return base + ((<usize>row * <usize>S + <usize>col) << 2)
}

/** k outermost, for blocks that read themselves while they change (phases 1 and 2). */
export function fw(d: usize, S: i32, i0: i32, i1: i32, j0: i32, j1: i32, k0: i32, k1: i32): void {
  for (let k = k0; k < k1; k++) {
    for (let i = i0; i < i1; i++) {
      const v = i32x4.splat(load<i32>(at(d, i, S, k)))
      const row = at(d, i, S, 0)
      const krow = at(d, k, S, 0)
      for (let j = j0; j < j1; j += 4) {
        const p = row + (<usize>j << 2)
        v128.store(p, i32x4.min_s(v128.load(p), i32x4.add(v, v128.load(krow + (<usize>j << 2)))))
      }
    }
  }
}

/** Phase 3: the inputs stay fixed, so 16 columns of two rows stay in registers through every k (each row k load serves both). */
export function minPlus(d: usize, S: i32, i0: i32, i1: i32, j0: i32, j1: i32, k0: i32, k1: i32): void {
  let i = i0
  for (; i + 2 <= i1; i += 2) {
    const row = at(d, i, S, 0)
    const row2 = at(d, i + 1, S, 0)
    let j = j0
    for (; j + 16 <= j1; j += 16) {
      const p = row + (<usize>j << 2)
      const p2 = row2 + (<usize>j << 2)
      let a0 = v128.load(p), a1 = v128.load(p, 16), a2 = v128.load(p, 32), a3 = v128.load(p, 48)
      let b0 = v128.load(p2), b1 = v128.load(p2, 16), b2 = v128.load(p2, 32), b3 = v128.load(p2, 48)
      for (let k = k0; k < k1; k++) {
        const u = i32x4.splat(load<i32>(row + (<usize>k << 2)))
        const v = i32x4.splat(load<i32>(row2 + (<usize>k << 2)))
        const q = at(d, k, S, j)
        const c0 = v128.load(q), c1 = v128.load(q, 16), c2 = v128.load(q, 32), c3 = v128.load(q, 48)
        a0 = i32x4.min_s(a0, i32x4.add(u, c0))
        a1 = i32x4.min_s(a1, i32x4.add(u, c1))
        a2 = i32x4.min_s(a2, i32x4.add(u, c2))
        a3 = i32x4.min_s(a3, i32x4.add(u, c3))
        b0 = i32x4.min_s(b0, i32x4.add(v, c0))
        b1 = i32x4.min_s(b1, i32x4.add(v, c1))
        b2 = i32x4.min_s(b2, i32x4.add(v, c2))
        b3 = i32x4.min_s(b3, i32x4.add(v, c3))
      }
      v128.store(p, a0)
      v128.store(p, a1, 16)
      v128.store(p, a2, 32)
      v128.store(p, a3, 48)
      v128.store(p2, b0)
      v128.store(p2, b1, 16)
      v128.store(p2, b2, 32)
      v128.store(p2, b3, 48)
    }
    if (j < j1) {
      minPlusRows(d, S, i, i + 2, j, j1, k0, k1)
    }
  }
  if (i < i1) minPlusRows(d, S, i, i1, j0, j1, k0, k1)
}

/** Phase 3 one vector at a time: the columns and rows the wide kernel leaves over. */
function minPlusRows(d: usize, S: i32, i0: i32, i1: i32, j0: i32, j1: i32, k0: i32, k1: i32): void {
  for (let i = i0; i < i1; i++) {
    const row = at(d, i, S, 0)
    for (let j = j0; j < j1; j += 4) {
      const p = row + (<usize>j << 2)
      let a = v128.load(p)
      for (let k = k0; k < k1; k++) a = i32x4.min_s(a, i32x4.add(i32x4.splat(load<i32>(row + (<usize>k << 2))), v128.load(at(d, k, S, j))))
      v128.store(p, a)
    }
  }
}

/** The key of i → k → j for four j: key(i, k) plus the hops of k → j, saturated. */
@inline function compose(vk: v128, kkj: v128): v128 {
  const c = i32x4.add(vk, v128.and(kkj, i32x4.splat(<i32>HOPS)))
  return v128.or(c, i32x4.lt_u(c, vk))
}

export function fwPaths(d: usize, key: usize, S: i32, i0: i32, i1: i32, j0: i32, j1: i32, k0: i32, k1: i32): void {
  for (let k = k0; k < k1; k++) {
    for (let i = i0; i < i1; i++) {
      const vd = i32x4.splat(load<i32>(at(d, i, S, k)))
      const vk = i32x4.splat(load<i32>(at(key, i, S, k)))
      for (let j = j0; j < j1; j += 4) {
        const pd = at(d, i, S, j)
        const pk = at(key, i, S, j)
        const cur = v128.load(pd)
        const curKey = v128.load(pk)
        const s = i32x4.add(vd, v128.load(at(d, k, S, j)))
        const c = compose(vk, v128.load(at(key, k, S, j)))
        const lt = i32x4.lt_s(s, cur)
        const better = v128.or(lt, v128.and(i32x4.eq(s, cur), i32x4.lt_u(c, curKey)))
        v128.store(pd, i32x4.min_s(s, cur))
        v128.store(pk, v128.bitselect(c, curKey, better))
      }
    }
  }
}

export function minPlusPaths(d: usize, key: usize, S: i32, i0: i32, i1: i32, j0: i32, j1: i32, k0: i32, k1: i32): void {
  for (let i = i0; i < i1; i++) {
    for (let j = j0; j < j1; j += 4) {
      const pd = at(d, i, S, j)
      const pk = at(key, i, S, j)
      let ad = v128.load(pd)
      let ak = v128.load(pk)
      for (let k = k0; k < k1; k++) {
        const s = i32x4.add(i32x4.splat(load<i32>(at(d, i, S, k))), v128.load(at(d, k, S, j)))
        const c = compose(i32x4.splat(load<i32>(at(key, i, S, k))), v128.load(at(key, k, S, j)))
        const lt = i32x4.lt_s(s, ad)
        const better = v128.or(lt, v128.and(i32x4.eq(s, ad), i32x4.lt_u(c, ak)))
        ad = i32x4.min_s(s, ad)
        ak = v128.bitselect(c, ak, better)
      }
      v128.store(pd, ad)
      v128.store(pk, ak)
    }
  }
}
