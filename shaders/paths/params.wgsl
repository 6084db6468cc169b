// What every shortest-paths dispatch is told, and how the matrix is split over bindings.

// Rows per binding (a multiple of 64); ONE_BAND when one binding holds the matrix, which
// compiles the accessors to plain indexing.
const ONE_BAND: u32 = 0xffffffffu;
override BAND_ROWS: u32 = ONE_BAND;

struct Params {
  // Row stride: the matrix side padded to whole blocks (and whole tiles of the kernel).
  n: u32,
  // The k of a per-k dispatch, or the round of a blocked one.
  k: u32,
}
