// The monolithic kernels in double-float (--precision accurate).
#include "landslide/layers_df"
#include "landslide/monolithic_passes"
