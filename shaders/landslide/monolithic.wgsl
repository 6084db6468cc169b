// The monolithic kernels in f32.
#include "landslide/layers"
#include "landslide/monolithic_passes"
