// The layout judge of the dashboard's end-to-end tests: what the main area shows, scrolled through a
// screenful at a time, must not overflow sideways, spill tables out of their cards, cut the names
// selects show, or hold text that overlaps other text or that a box hiding its overflow cuts.
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'

/** Page and main area widths: scrolled width beside the visible one, and what sticks out of the main area. */
function widths(page: Page) {
  return page.evaluate(() => {
    const main = document.querySelector<HTMLElement>('.main')!
    const right = main.getBoundingClientRect().left + main.clientLeft + main.clientWidth
    // The outermost elements reaching past the main area's right edge.
    const beyond = [...main.querySelectorAll<HTMLElement>('*')]
      .filter((el) => el.getBoundingClientRect().right > right + 1 && !(el.parentElement && el.parentElement !== main && el.parentElement.getBoundingClientRect().right > right + 1))
      .map((el) => `<${el.tagName.toLowerCase()}> in ${el.closest('[data-testid]')?.getAttribute('data-testid') ?? '?'}`)
    // Tables reaching past their card, unless a box between them scrolls sideways.
    const spilling = [...main.querySelectorAll<HTMLElement>('table')]
      .filter((t) => {
        const card = t.closest<HTMLElement>('.card')
        if (!card) return false
        for (let a = t.parentElement; a && a !== card; a = a.parentElement) if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return false
        const c = card.getBoundingClientRect()
        return t.getBoundingClientRect().right > c.left + card.clientLeft + card.clientWidth + 1
      })
      .map((t) => t.getAttribute('data-testid') ?? t.closest('[data-testid]')?.getAttribute('data-testid') ?? '?')
    // Selects too narrow for the option they show (its text measured in the select's font, beside the arrow).
    const ctx = document.createElement('canvas').getContext('2d')!
    const cut = [...main.querySelectorAll<HTMLSelectElement>('select')]
      .filter((s) => {
        const shown = s.selectedOptions[0]?.text
        if (!shown || !s.checkVisibility()) return false
        ctx.font = getComputedStyle(s).font
        return ctx.measureText(shown).width > s.clientWidth - 24
      })
      .map((s) => `${s.getAttribute('data-testid') ?? '?'}: ${s.selectedOptions[0].text}`)
    return { page: document.documentElement.scrollWidth, window: innerWidth, main: main.scrollWidth, mainVisible: main.clientWidth, beyond, spilling, cut }
  })
}

/**
 * Text on screen that overlaps other text, or that a box hiding its overflow (overflow hidden or
 * clip) cuts: each as a line naming the text and where it is.
 */
function textProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const name = (el: Element) => {
      const id = el.closest('[data-testid]')?.getAttribute('data-testid')
      return `<${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}>${id ? ` in ${id}` : ''}`
    }
    const hides = (o: string) => o === 'hidden' || o === 'clip'
    const problems: string[] = []
    /** Each text box where it can be seen: cut to every box that clips it (hiding or scrolling). */
    const seen: { r: { left: number; top: number; right: number; bottom: number }; text: string; node: Node; el: Element }[] = []
    const walker = document.createTreeWalker(document.querySelector('.shell')!, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent!.trim()
      const el = node.parentElement!
      if (!text || !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue
      const range = document.createRange()
      range.selectNodeContents(node)
      for (const r of range.getClientRects()) {
        if (r.width < 1 || r.height < 1) continue
        const v = { left: r.left, top: r.top, right: r.right, bottom: r.bottom }
        for (let a: Element | null = el; a && a !== document.body; a = a.parentElement) {
          const style = getComputedStyle(a)
          const clipX = style.overflowX !== 'visible'
          const clipY = style.overflowY !== 'visible'
          if (!clipX && !clipY) continue
          const b = a.getBoundingClientRect()
          const box = { left: b.left + a.clientLeft, top: b.top + a.clientTop, right: b.left + a.clientLeft + a.clientWidth, bottom: b.top + a.clientTop + a.clientHeight }
          // Cut where the box hides what overflows it, or scrolls sideways though it holds no table
          // (a wide table may scroll in its box; a scrolling column of text must not need to); an
          // ellipsis with the whole text in a tooltip is a shortening, not a cut.
          const table = el.closest('table')
          const sideways = hides(style.overflowX) || (style.overflowX !== 'visible' && !(table && a.contains(table)))
          const cutX = sideways && (r.left < box.left - 1 || r.right > box.right + 1)
          const cutY = hides(style.overflowY) && (r.top < box.top - 1 || r.bottom > box.bottom + 1)
          const explained = getComputedStyle(el).textOverflow === 'ellipsis' && !cutY && (el.closest('[title]')?.getAttribute('title') ?? '').includes(text)
          if ((cutX || cutY) && !explained) problems.push(`"${text}" cut by ${name(a)}`)
          if (clipX) [v.left, v.right] = [Math.max(v.left, box.left), Math.min(v.right, box.right)]
          if (clipY) [v.top, v.bottom] = [Math.max(v.top, box.top), Math.min(v.bottom, box.bottom)]
        }
        if (v.right - v.left >= 1 && v.bottom - v.top >= 1) seen.push({ r: v, text, node, el })
      }
    }
    // Overlaps: the seen parts of different text nodes sharing more than a sliver.
    seen.sort((a, b) => a.r.top - b.r.top)
    for (let i = 0; i < seen.length; i++)
      for (let j = i + 1; j < seen.length && seen[j].r.top < seen[i].r.bottom - 2; j++) {
        const [a, b] = [seen[i], seen[j]]
        if (a.node === b.node) continue
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left)
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top)
        if (w > 2 && h > 2) problems.push(`"${a.text}" (${name(a.el)}) overlaps "${b.text}" (${name(b.el)})`)
      }
    return [...new Set(problems)]
  })
}

/** Checks what the main area shows (`name` in messages and screenshots), scrolled through from the top. */
export async function judge(page: Page, view: string, size: { width: number; height: number }, shots: string) {
  // The views share one scrolling area: each screenshot starts at the top of its view.
  await page.evaluate(() => document.querySelector('.main')!.scrollTo(0, 0))
  // Chart.js follows a resize on the next animation frames.
  await page.waitForTimeout(400)
  await page.screenshot({ path: join(shots, `${view}-${size.width}x${size.height}.png`) })
  const w = await widths(page)
  expect(w.page, `${view} at ${size.width}: page width`).toBeLessThanOrEqual(w.window)
  expect(w.main, `${view} at ${size.width}: main area's scrolled width (beyond it: ${w.beyond.join(', ')})`).toBeLessThanOrEqual(w.mainVisible)
  expect(w.spilling, `${view} at ${size.width}: tables out of their card`).toEqual([])
  expect(w.cut, `${view} at ${size.width}: selects cutting the name they show`).toEqual([])
  // Text is judged where it can be seen: the view is scrolled through, a screenful less a margin at a time.
  const problems = new Set<string>()
  for (let top = 0, screen = 0; ; screen++) {
    const { height, bottom } = await page.evaluate((y) => {
      const main = document.querySelector('.main')!
      main.scrollTo(0, y)
      return { height: main.clientHeight, bottom: main.scrollHeight - main.clientHeight }
    }, top)
    for (const p of await textProblems(page)) problems.add(p)
    if (screen > 0) await page.screenshot({ path: join(shots, `${view}-${size.width}x${size.height}-${screen}.png`) })
    if (top >= bottom) break
    top = Math.min(bottom, top + Math.floor(height * 0.8))
  }
  expect([...problems], `${view} at ${size.width}×${size.height}: text`).toEqual([])
}

