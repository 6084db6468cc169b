// The grid-stride kernels in double-float (--precision accurate).
#include "landslide/layers_df"
#include "landslide/grid_stride_passes"
