// Headless chart rendering: the dashboard's Chart.js configurations drawn on @napi-rs/canvas, to PNG
// (raster, white background) or SVG (vector, text as <text> elements so it stays editable in
// Inkscape or Illustrator).
import type { Chart as ChartType, ChartConfiguration, Plugin } from 'chart.js'
import { ApiError } from '../../shared/errors'
import { ASPECT_RATIO, aspectRatioOf, chartConfig } from '../../shared/charts'
import type { ChartSize } from '../../shared/api'
import type { ChartSpec } from '../../shared/charts/spec'
import { BACKGROUND_COLOR, FONT_FAMILY } from '../../shared/charts/theme'

export type ChartImageFormat = 'png' | 'svg'

export interface ChartImageSize {
  /** Layout size in CSS pixels, as the chart would be laid out on screen. */
  width: number
  height: number
  /** PNG pixels per CSS pixel (2 gives a 1920×1200 file for a 960×600 chart); SVG ignores it. Default 2, for print. */
  pixelRatio?: number
}

/** The export default: 960 CSS pixels wide, as high as the chart kind's aspect ratio makes it (this, a line chart's). */
export const DEFAULT_CHART_SIZE: Readonly<ChartImageSize> = { width: 960, height: Math.round(960 / ASPECT_RATIO), pixelRatio: 2 }

const MAX_SIDE = 16384

/** The renderer's size from an export request's (scale is PNG pixels per CSS pixel). */
export function chartImageSize(size: ChartSize = {}): Partial<ChartImageSize> {
  return { width: size.width, height: size.height, pixelRatio: size.scale }
}

type CanvasModule = typeof import('@napi-rs/canvas')
type ChartModule = typeof import('chart.js')
let runtime: Promise<{ canvas: CanvasModule; chartjs: ChartModule }> | undefined

/** Loaded on first export only, so the rest of the backend runs where the native addon is missing. */
function loadRuntime(): Promise<{ canvas: CanvasModule; chartjs: ChartModule }> {
  runtime ??= (async () => {
    let canvas: CanvasModule
    try {
      canvas = await import('@napi-rs/canvas')
    } catch (e) {
      runtime = undefined
      throw new ApiError('internal', `chart export needs the @napi-rs/canvas native addon, which failed to load: ${e instanceof Error ? e.message : String(e)}`)
    }
    const chartjs = await import('chart.js')
    const matrix = await import('chartjs-chart-matrix')
    chartjs.Chart.register(...chartjs.registerables, matrix.MatrixController, matrix.MatrixElement)
    // Bars with whiskers, as the 'bars' chart kind draws them.
    const errorBars = await import('chartjs-chart-error-bars')
    chartjs.Chart.register(errorBars.BarWithErrorBarsController, errorBars.BarWithErrorBar)
    ensureFonts(canvas.GlobalFonts)
    return { canvas, chartjs }
  })()
  return runtime
}

/** @napi-rs/canvas with the charts' fonts found, for images a workload draws itself (e.g. an animation's frames). */
export async function loadCanvas(): Promise<CanvasModule> {
  return (await loadRuntime()).canvas
}

const FONT_DIRS = ['/usr/share/fonts/truetype/dejavu', '/usr/share/fonts', '/usr/local/share/fonts', '/Library/Fonts', '/System/Library/Fonts', 'C:\\Windows\\Fonts']

/** Skia finds system fonts by itself on most machines; where it found none of ours, look in the usual places. */
function ensureFonts(fonts: CanvasModule['GlobalFonts']): void {
  const wanted = FONT_FAMILY.split(',').map((f) => f.trim().replace(/^'|'$/g, ''))
  const have = () => wanted.some((f) => f !== 'sans-serif' && fonts.has(f))
  for (const dir of FONT_DIRS) {
    if (have()) return
    try {
      fonts.loadFontsFromDir(dir)
    } catch {
      // A missing directory is the normal case on other systems.
    }
  }
}

const whiteBackground: Plugin = {
  id: 'paralabBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart
    // No ligatures: "ﬁ" in an SVG <text> element would not read or search as "fi" in an editor.
    Object.assign(ctx, { textRendering: 'optimizeSpeed' })
    ctx.save()
    ctx.fillStyle = BACKGROUND_COLOR
    ctx.fillRect(0, 0, width, height)
    ctx.restore()
  },
}

/** Draws `spec` as the dashboard would at `size` and returns the file's bytes. */
export async function renderChart(spec: ChartSpec, format: ChartImageFormat, size: Partial<ChartImageSize> = {}): Promise<Uint8Array> {
  const width = size.width ?? DEFAULT_CHART_SIZE.width
  const height = size.height ?? Math.round(width / aspectRatioOf(spec.kind))
  const pixelRatio = format === 'svg' ? 1 : (size.pixelRatio ?? DEFAULT_CHART_SIZE.pixelRatio!)
  for (const [name, v] of [['width', width], ['height', height], ['width × pixel ratio', Math.round(width * pixelRatio)], ['height × pixel ratio', Math.round(height * pixelRatio)]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_SIDE)
      throw new ApiError('invalid-argument', `chart ${name} must be a whole number of pixels in 1…${MAX_SIDE}, got ${v}`)
  }
  if (format !== 'png' && format !== 'svg') throw new ApiError('invalid-argument', `chart format must be png or svg, got ${String(format)}`)
  const config = chartConfig(spec, { animation: false, responsive: false, interactive: false })
  const { canvas: skia, chartjs } = await loadRuntime()

  if (format === 'svg') {
    const canvas = skia.createCanvas(width, height, skia.SvgExportFlag.NoPrettyXML)
    return draw(chartjs, canvas, config, 1, () => withViewBox(canvas.getContent(), width, height))
  }
  const canvas = skia.createCanvas(width, height)
  return draw(chartjs, canvas, config, pixelRatio, () => canvas.encode('png'))
}

/** Chart.js draws synchronously with animation off; the output is taken before `destroy` clears the canvas. */
async function draw(
  chartjs: ChartModule,
  canvas: object,
  config: ChartConfiguration<'line'>,
  pixelRatio: number,
  output: () => Buffer | Promise<Buffer>,
): Promise<Uint8Array> {
  let chart: ChartType<'line'> | undefined
  try {
    chart = new chartjs.Chart(canvas as HTMLCanvasElement, {
      ...config,
      platform: chartjs.BasicPlatform,
      options: { ...config.options, devicePixelRatio: pixelRatio },
      plugins: [...(config.plugins ?? []), whiteBackground],
    })
    const bytes = await output()
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  } finally {
    chart?.destroy()
  }
}

/** A viewBox lets the SVG scale when a document places it at another size. */
function withViewBox(svg: Buffer, width: number, height: number): Buffer {
  const text = svg.toString('utf8')
  const root = text.indexOf('<svg ')
  if (root < 0 || /^<svg [^>]*viewBox=/.test(text.slice(root))) return svg
  return Buffer.from(`${text.slice(0, root + 5)}viewBox="0 0 ${width} ${height}" ${text.slice(root + 5)}`, 'utf8')
}
