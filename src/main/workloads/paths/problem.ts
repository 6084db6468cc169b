// The problem every shortest-paths backend solves, as prepare-problem.ts makes it from a graph:
// non-negative int32 weights (or, for real weights, their f32 bits), each below INF or INF itself.

export interface Problem {
  V: number
  /** Edges with non-negative weights; self-loops included (the matrix ignores them). */
  src: Int32Array
  dst: Int32Array
  w: Int32Array
  selfLoops: number
  /** Johnson potentials when the graph had negative weights: d(u, v) = d'(u, v) − h(u) + h(v). */
  potential?: Float64Array
  /** Whether a distance could reach INF (V − 1 times the largest weight does): checkReached then checks the result. */
  unbounded?: boolean
  /** Real weights (real.ts): `w` then holds the f32 bits of the reweighted weights, for the GPU. */
  real?: RealWeights
}

/** The weights of a real-weighted problem. */
export interface RealWeights {
  /** f64, as read (the CPU's Floyd–Warshall). */
  w: Float64Array
  /** Why the GPU's f32 cannot hold the distances (their sum over V − 1 edges overflows), naming the weight and its line. */
  f32Refused?: string
}
