// The active-area kernels in f32.
#include "landslide/layers"
#include "landslide/active_passes"
