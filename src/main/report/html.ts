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

/** A start or end tag, its attributes (quoted values may hold `>`) in group 2. */
const TAG = /<(\/?[A-Za-z][\w:-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'))?)*)\s*\/?>/y
const ATTRIBUTE = /([^\s=>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'))?/g

/**
 * A chart's SVG as it goes inline into the report: its XML declaration dropped, and refused (an
 * internal error, naming the chart) unless every tag is an element of SVG_ELEMENTS whose
 * attributes hold no event handler and refer to nothing but the SVG itself or a data: image. Text
 * between tags is escaped by the exporter; a `<` that starts no such tag is refused too.
 */
export function inlineSvg(svg: string, chart: string): string {
  const body = svg.replace(/^\s*<\?xml[^>]*\?>\s*/, '')
  const refuse = (why: string): never => {
    throw new ApiError('internal', `chart ${chart}: its SVG ${why}, which a report does not inline`)
  }
  for (let at = body.indexOf('<'); at >= 0; at = body.indexOf('<', at)) {
    TAG.lastIndex = at
    const tag = TAG.exec(body)
    if (!tag) refuse(`holds markup that is no plain tag at ${at} (${JSON.stringify(body.slice(at, at + 40))})`)
    const name = tag![1].replace(/^\//, '')
    if (!SVG_ELEMENTS.has(name.toLowerCase())) refuse(`holds a <${name}> element`)
    for (const a of tag![2].matchAll(ATTRIBUTE)) {
      const [attr, value = a[3] ?? ''] = [a[1].toLowerCase(), a[2]]
      if (attr.startsWith('on')) refuse(`holds an event handler attribute (${a[1]})`)
      if ((attr === 'href' || attr.endsWith(':href') || attr === 'src') && !value.startsWith('#') && !value.startsWith('data:image/')) refuse(`refers to ${JSON.stringify(value.slice(0, 80))}, outside the report`)
      if (/url\(\s*["']?(?!#)/i.test(value)) refuse('refers to a url() outside itself')
    }
    at = TAG.lastIndex
  }
  return body
}
