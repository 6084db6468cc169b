// How a landslide run sampled its steps: the charts' series every `frames` steps, the animation's
// maps as often up to MAX_THICKNESS_MAPS of them, and where that cap thinned the maps, a line saying so.
import { MAX_THICKNESS_MAPS, type LandslideResult } from './types'

/** Why the animation has fewer frames than the charts have points; null when every sample is a frame. */
export function framesNote(r: Pick<LandslideResult, 'sampling' | 'maps'>): string | null {
  const s = r.sampling
  if (!s || s.maps_every === s.every) return null
  return `${r.maps.length} frames, one every ${s.maps_every} steps (and the last): the animation keeps at most ${MAX_THICKNESS_MAPS}; the charts have a point every ${s.every} steps`
}
