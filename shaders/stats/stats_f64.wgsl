// Column statistics in f64, exact: the module the gpu engine compiles, one pipeline per entry
// point (src/main/workloads/stats/gpu/kernels.ts). stats_f32.wgsl differs in its precision part.
#include "stats/common" // bindings, state, 64-bit integers, keys
#include "stats/f64" // Word (a double's bits), keys of x and of |x − median|, fixed-point sums
#include "stats/sums" // scan, combine
#include "stats/select" // sample, start, bracket, refine, pick
