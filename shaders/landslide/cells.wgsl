// Reading a cell's place in the grid, for modules that declare the bindings `grid` (a Grid) and
// `mask` (wall bits, four cells to a word).

fn walls_at(k: u32) -> u32 {
  return (mask[k >> 2u] >> ((k & 3u) * 8u)) & 0xffu;
}

// The one-cell border never changes: only interior cells are computed.
fn interior(i: u32, j: u32) -> bool {
  return i >= 1u && j >= 1u && i + 1u < grid.rows && j + 1u < grid.cols;
}
