// The active-area kernels in double-float (--precision accurate).
#include "landslide/layers_df"
#include "landslide/active_passes"
