// How a landslide run sampled its steps: the charts' series every `frames` steps, the animation's
// maps as often up to MAX_THICKNESS_MAPS of them and a budget of bytes (frame_bytes), and where a cap thinned the samples or the maps, a line saying so.
import { MAX_SAMPLES, MAX_THICKNESS_MAPS, type LandslideResult } from './types'

/** Why the animation has fewer frames than the charts have points, or the charts fewer than asked; null when neither cap applied. */
export function framesNote(r: Pick<LandslideResult, 'sampling' | 'maps'>): string | null {
  const s = r.sampling
  if (!s) return null
  const raised = s.asked !== undefined && s.asked !== s.every ? `samples every ${s.every} steps instead of the ${s.asked} asked for: a run takes at most ${MAX_SAMPLES}` : null
  const bound = s.frame_bytes !== undefined ? `${s.frame_bytes / 2 ** 20} MiB of the debris' snapshots (and at most ${MAX_THICKNESS_MAPS} frames)` : `${MAX_THICKNESS_MAPS}`
  const thinned = s.maps_every !== s.every ? `${r.maps.length} frames, one every ${s.maps_every} steps (and the last): the animation keeps at most ${bound}; the charts have a point every ${s.every} steps` : null
  return [raised, thinned].filter(Boolean).join('; ') || null
}
