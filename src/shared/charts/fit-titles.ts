// A chart's title and the note under it, wrapped to the canvas rather than squeezed into it: every
// kind of chart draws them through this plugin.
import type { Chart, Plugin } from 'chart.js'
import { toFont } from 'chart.js/helpers'

/** Room left and right of a title: the frame's padding. */
const TITLE_MARGIN = { left: 8, right: 16 }

/** Chart.js's title and subtitle blocks: the layout boxes whose options hold a text. */
function titleBlocks(chart: Chart): { left: number; right: number; width: number; options: { text: string | string[]; font: object } }[] {
  return chart.boxes.filter((b) => 'text' in ((b as { options?: object }).options ?? {})) as never
}

/** `text` in lines no wider than `width` as `measure` measures them: broken at spaces, a word wider than a line at a character. */
export function wrapText(text: string, width: number, measure: (s: string) => number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    const joined = line ? `${line} ${word}` : word
    if (measure(joined) <= width || !line) line = joined
    else {
      lines.push(line)
      line = word
    }
    // A word wider than a line of its own: broken where it no longer fits.
    while (measure(line) > width && line.length > 1) {
      let cut = line.length - 1
      while (cut > 1 && measure(line.slice(0, cut)) > width) cut--
      lines.push(line.slice(0, cut))
      line = line.slice(cut)
    }
  }
  if (line) lines.push(line)
  return lines
}

/**
 * Titles at their font's own width: Chart.js squeezes a title wider than its block (canvas text's
 * maxWidth), and a padded plot (the heatmap's square one) narrows the block to the plot's width. So
 * the title and the note are wrapped to the canvas's width before the layout, and their blocks span
 * that width after it, whatever padding the plot has.
 */
export function fitTitles(title: string, note: string | undefined): Plugin {
  return {
    id: 'paralabFitTitles',
    beforeLayout(chart: Chart) {
      const room = chart.width - TITLE_MARGIN.left - TITLE_MARGIN.right
      const { ctx } = chart
      for (const block of titleBlocks(chart)) {
        const text = block === (chart as { titleBlock?: unknown }).titleBlock ? title : note
        if (text === undefined) continue
        ctx.save()
        ctx.font = toFont(block.options.font).string
        const lines = wrapText(text, room, (s) => ctx.measureText(s).width)
        ctx.restore()
        block.options.text = lines.length === 1 ? lines[0] : lines
      }
    },
    afterLayout(chart: Chart) {
      for (const block of titleBlocks(chart)) {
        block.left = TITLE_MARGIN.left
        block.right = chart.width - TITLE_MARGIN.right
        block.width = block.right - block.left
      }
    },
  }
}
