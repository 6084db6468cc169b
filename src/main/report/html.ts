// Text from an envelope as it lands in a report's HTML: every string escaped for the place it lands
// (element text and attribute values, a <script type="application/json"> block, an inline SVG), so
// that nothing a file name, label or parameter holds can become markup or end the block it is in.
import { ApiError } from '../../shared/errors'

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text safe as element content and as a quoted attribute's value. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>` and `&` as \u escapes (so neither
 * `</script>` nor `<!--` can appear in it), and U+2028/U+2029 too; JSON.parse of the block's text
 * gives the value back unchanged.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** The elements a chart's SVG (Skia's SVG canvas) is drawn with: nothing that runs, loads or embeds. */
const SVG_ELEMENTS = new Set(['svg', 'g', 'path', 'rect', 'text', 'tspan', 'defs', 'clippath', 'line', 'polyline', 'polygon', 'circle', 'ellipse', 'lineargradient', 'radialgradient', 'stop', 'pattern', 'mask', 'use', 'image'])

/**
 * A chart's SVG as it goes inline into the report: its XML declaration dropped, and refused (an
 * internal error, naming the chart) if it holds an element outside SVG_ELEMENTS, an event handler
 * attribute, or a reference to anything but the SVG itself or a data: image.
 */
export function inlineSvg(svg: string, chart: string): string {
  const body = svg.replace(/^\s*<\?xml[^>]*\?>\s*/, '')
  for (const m of body.matchAll(/<\/?([A-Za-z][\w:-]*)/g))
    if (!SVG_ELEMENTS.has(m[1].toLowerCase())) throw new ApiError('internal', `chart ${chart}: its SVG holds a <${m[1]}> element, which a report does not inline`)
  if (/\son[a-z]+\s*=/i.test(body)) throw new ApiError('internal', `chart ${chart}: its SVG holds an event handler attribute`)
  for (const m of body.matchAll(/(?:href|src)\s*=\s*["']([^"']*)["']/gi))
    if (!m[1].startsWith('#') && !m[1].startsWith('data:image/')) throw new ApiError('internal', `chart ${chart}: its SVG refers to ${JSON.stringify(m[1].slice(0, 80))}, outside the report`)
  if (/url\(\s*["']?(?!#)/i.test(body)) throw new ApiError('internal', `chart ${chart}: its SVG refers to a url() outside itself`)
  return body
}
