// The grid-stride kernels in f32.
#include "landslide/layers"
#include "landslide/grid_stride_passes"
