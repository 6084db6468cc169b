// One look for every chart, on screen and in exported files: fonts, colours, series styles.
import type { FontSpec, PointStyle } from 'chart.js'

/** DejaVu Sans first: it is what the headless renderer has on Linux, so exports match the screen. */
export const FONT_FAMILY = "'DejaVu Sans', 'Helvetica Neue', Helvetica, Arial, sans-serif"

export const TEXT_COLOR = '#1f2328'
export const MUTED_TEXT_COLOR = '#57606a'
export const GRID_COLOR = 'rgba(0, 0, 0, 0.08)'
export const AXIS_COLOR = '#6e7781'
export const BACKGROUND_COLOR = '#ffffff'
/** The roof of a roofline: neutral, so kernels keep the palette's colours. */
export const ROOF_COLOR = '#24292f'

/** Okabe–Ito, distinguishable with the common colour-vision deficiencies (its yellow, unreadable on white, left out). */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#7F7F7F'] as const

/** Markers as a second cue, so lines stay apart in greyscale print. */
export const POINT_STYLES: readonly PointStyle[] = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star', 'cross', 'rectRounded']

/** Dash patterns, solid first: a second dimension beside colour (e.g. backends, with colours for columns). */
export const DASHES: readonly number[][] = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4], [14, 4]]

/** Legend entries that stand for a dash pattern of any colour. */
export const KEY_COLOR = MUTED_TEXT_COLOR

export function seriesColor(index: number): string {
  return PALETTE[index % PALETTE.length]
}

export function seriesPointStyle(index: number): PointStyle {
  return POINT_STYLES[index % POINT_STYLES.length]
}

export function seriesDash(index: number): number[] {
  return DASHES[index % DASHES.length]
}

export function font(size: number, weight: FontSpec['weight'] = 'normal'): Partial<FontSpec> {
  return { family: FONT_FAMILY, size, weight }
}

export const FONT_SIZES = { title: 16, note: 12, axisTitle: 13, ticks: 11, legend: 12 } as const

/** Stops of a colour scale: positions 0…1 and their RGB colours. */
export type ColorStops = readonly (readonly [number, readonly [number, number, number]])[]

/** Diverging, light in the middle (ColorBrewer RdBu, reversed): low blue, high red, both readable in greyscale by lightness. */
export const DIVERGING_STOPS: ColorStops = [
  [0, [33, 102, 172]],
  [0.25, [103, 169, 207]],
  [0.5, [247, 247, 247]],
  [0.75, [239, 138, 98]],
  [1, [178, 24, 43]],
]

/** An RGB colour (0…255 each) as `#rrggbb`. */
export function hexColor(rgb: readonly number[]): string {
  return `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`
}

/** The colour at `t` (clamped to 0…1) along `stops`, interpolated linearly, as `#rrggbb`. */
export function rampColor(stops: ColorStops, t: number): string {
  const x = Math.min(1, Math.max(0, t))
  let i = 0
  while (i < stops.length - 2 && x > stops[i + 1][0]) i++
  const [t0, c0] = stops[i]
  const [t1, c1] = stops[i + 1]
  const f = (x - t0) / (t1 - t0)
  return hexColor(c0.map((c, k) => c + (c1[k] - c) * f))
}
