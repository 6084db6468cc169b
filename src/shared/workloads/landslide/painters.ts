// Where a thickness frame is drawn: a 2D canvas (the page's, or @napi-rs/canvas in the backend) or
// an SVG document. The frame is only rectangles and text, so one drawing serves raster and vector.
import { FONT_FAMILY } from '../../charts/theme'

export interface TextStyle {
  size: number
  color: string
  bold?: boolean
  align?: 'left' | 'center' | 'right'
  baseline?: 'top' | 'middle' | 'alphabetic'
}

export interface Painter {
  /** A filled rectangle, in pixels from the top left. */
  rect(x: number, y: number, width: number, height: number, color: string): void
  /** A rectangle's outline, `lineWidth` wide, centred on its edges. */
  outline(x: number, y: number, width: number, height: number, color: string, lineWidth: number): void
  text(text: string, x: number, y: number, style: TextStyle): void
}

/** What the drawing uses of a 2D context: the page's CanvasRenderingContext2D and @napi-rs/canvas's both have it. */
export interface Canvas2D {
  fillStyle: unknown
  strokeStyle: unknown
  lineWidth: number
  font: string
  textAlign: unknown
  textBaseline: unknown
  fillRect(x: number, y: number, width: number, height: number): void
  strokeRect(x: number, y: number, width: number, height: number): void
  fillText(text: string, x: number, y: number): void
}

const fontOf = (s: TextStyle) => `${s.bold ? 'bold ' : ''}${s.size}px ${FONT_FAMILY}`

export function canvasPainter(ctx: Canvas2D): Painter {
  return {
    rect(x, y, w, h, color) {
      ctx.fillStyle = color
      ctx.fillRect(x, y, w, h)
    },
    outline(x, y, w, h, color, lineWidth) {
      ctx.strokeStyle = color
      ctx.lineWidth = lineWidth
      ctx.strokeRect(x, y, w, h)
    },
    text(text, x, y, s) {
      ctx.font = fontOf(s)
      ctx.fillStyle = s.color
      ctx.textAlign = s.align ?? 'left'
      ctx.textBaseline = s.baseline ?? 'alphabetic'
      ctx.fillText(text, x, y)
    },
  }
}

const escapeXml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
const ANCHOR = { left: 'start', center: 'middle', right: 'end' } as const
const BASELINE = { top: 'text-before-edge', middle: 'central', alphabetic: 'alphabetic' } as const

/** Collects the drawing as SVG elements: rectangles stay rectangles and text stays text, editable in Inkscape or Illustrator. */
/** SVG elements joined into one string at a time. */
const SVG_CHUNK = 4096

export class SvgPainter implements Painter {
  /** The elements so far, joined a few thousand at a time: a map of a million cells keeps a few hundred strings, not a million. */
  private readonly parts: string[] = []
  private pending: string[] = []

  private add(element: string): void {
    this.pending.push(element)
    if (this.pending.length >= SVG_CHUNK) this.flush()
  }

  private flush(): void {
    if (this.pending.length) this.parts.push(this.pending.join('\n'))
    this.pending = []
  }

  rect(x: number, y: number, w: number, h: number, color: string): void {
    this.add(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${color}"/>`)
  }

  outline(x: number, y: number, w: number, h: number, color: string, lineWidth: number): void {
    this.add(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${color}" stroke-width="${lineWidth}"/>`)
  }

  text(text: string, x: number, y: number, s: TextStyle): void {
    const weight = s.bold ? ' font-weight="bold"' : ''
    this.add(
      `<text x="${x}" y="${y}" font-family="${escapeXml(FONT_FAMILY)}" font-size="${s.size}"${weight} fill="${s.color}" text-anchor="${ANCHOR[s.align ?? 'left']}" dominant-baseline="${BASELINE[s.baseline ?? 'alphabetic']}">${escapeXml(text)}</text>`,
    )
  }

  /** The document in pieces, each ending its lines; crisp edges keep neighbouring cells free of hairline seams. */
  *pieces(width: number, height: number): Generator<string> {
    this.flush()
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" shape-rendering="crispEdges">\n`
    for (const part of this.parts) yield `${part}\n`
    yield '</svg>\n'
  }
}
