// The grid's size, as every landslide kernel's uniform holds it, and the wall bits of a cell.

struct Grid {
  rows: u32,
  cols: u32,
  // Cells: rows × cols.
  n: u32,
  // Always 0, which no compiler can know: double_float.wgsl's df_opaque.
  zero: u32,
}

// Wall bits of a cell: neighbour n (1 north, 2 west, 3 east, 4 south) is a wall, or the cell is one.
const WALL_SELF: u32 = 32u;
