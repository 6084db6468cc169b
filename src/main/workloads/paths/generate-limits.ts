// What `generate graph` (and the bench, which generates its graphs) accepts, known before the generator loads.

/** Largest V: the matrix of V × V int32 distances must stay addressable. */
export const MAX_GENERATED_VERTICES = 46_340
