// Column statistics in f32 (the studies' "float"): the module the gpu engine compiles, one
// pipeline per entry point (src/main/workloads/stats/gpu/kernels.ts). stats_f64.wgsl differs
// in its precision part.
#include "stats/common" // bindings, state, 64-bit integers, keys
#include "stats/f32" // Word (a float's bits), keys of x and of |x − median|, compensated sums
#include "stats/sums" // scan, combine
#include "stats/select" // sample, start, bracket, refine, pick
