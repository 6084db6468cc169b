// Active: the three passes over the bounding box of the debris only. `box` holds, for the next
// step, the rows and columns of interior cells with h ≠ 0 (the update pass widens it with atomics);
// `plan` turns it into the regions of the step, outflows over the box widened by two cells and
// updates over it widened by one (which covers every outflow an update reads), and into the
// workgroup counts of the two indirect dispatches. Cells beyond the box hold no debris and have
// none within reach, so they would not change. Written against the layers of either precision
// (active.wgsl: f32, active_df.wgsl: double-float).

const T: u32 = 16u;
const EMPTY: u32 = 0xffffffffu;

// Rows i0…i1, columns j0…j1 (inclusive) of cells with h ≠ 0, gathered by `update` for the next step.
@group(0) @binding(5) var<storage, read_write> box: array<atomic<u32>, 4>;
// The step's regions: outflows (rows, columns), then updates, each i0, i1, j0, j1.
@group(0) @binding(6) var<storage, read_write> region: array<u32, 8>;
// Workgroup counts of the outflow and update dispatches (x, y, z each).
@group(0) @binding(7) var<storage, read_write> args: array<u32, 6>;

var<workgroup> group_box: array<atomic<u32>, 4>;

fn widen(lo: u32, hi: u32, d: u32, last: u32, out: u32) {
  region[out] = select(1u, lo - d, lo > d);
  region[out + 1u] = min(hi + d, last);
}

@compute @workgroup_size(1)
fn plan() {
  let i0 = atomicLoad(&box[0]);
  let i1 = atomicLoad(&box[1]);
  let j0 = atomicLoad(&box[2]);
  let j1 = atomicLoad(&box[3]);
  atomicStore(&box[0], EMPTY);
  atomicStore(&box[1], 0u);
  atomicStore(&box[2], EMPTY);
  atomicStore(&box[3], 0u);
  if (i0 > i1) {
    for (var q = 0u; q < 6u; q++) { args[q] = select(1u, 0u, q % 3u == 0u); }
    return;
  }
  for (var r = 0u; r < 2u; r++) {
    let d = 2u - r;
    widen(i0, i1, d, grid.rows - 2u, 4u * r);
    widen(j0, j1, d, grid.cols - 2u, 4u * r + 2u);
    args[3u * r] = (region[4u * r + 3u] - region[4u * r + 2u] + T) / T;
    args[3u * r + 1u] = (region[4u * r + 1u] - region[4u * r] + T) / T;
    args[3u * r + 2u] = 1u;
  }
}

@compute @workgroup_size(16, 16)
fn flows(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = region[0] + id.y;
  let j = region[2] + id.x;
  if (i > region[1] || j > region[3]) { return; }
  let k = i * grid.cols + j;
  f[k] = outflows_at(k);
}

@compute @workgroup_size(16, 16)
fn update(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    atomicStore(&group_box[0], EMPTY);
    atomicStore(&group_box[1], 0u);
    atomicStore(&group_box[2], EMPTY);
    atomicStore(&group_box[3], 0u);
  }
  workgroupBarrier();
  let i = region[4] + id.y;
  let j = region[6] + id.x;
  if (i <= region[5] && j <= region[7]) {
    let k = i * grid.cols + j;
    update_at(k);
    if (has_debris(k)) {
      atomicMin(&group_box[0], i);
      atomicMax(&group_box[1], i);
      atomicMin(&group_box[2], j);
      atomicMax(&group_box[3], j);
    }
  }
  workgroupBarrier();
  if (lid == 0u && atomicLoad(&group_box[0]) != EMPTY) {
    atomicMin(&box[0], atomicLoad(&group_box[0]));
    atomicMax(&box[1], atomicLoad(&group_box[1]));
    atomicMin(&box[2], atomicLoad(&group_box[2]));
    atomicMax(&box[3], atomicLoad(&group_box[3]));
  }
}
