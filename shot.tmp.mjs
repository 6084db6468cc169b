import { chromium } from 'playwright-core'
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] })
for (const f of process.argv.slice(2)) {
  const p = await b.newPage({ viewport: { width: 703, height: 1000 } })
  await p.emulateMedia({ media: 'print' })
  await p.goto('file://' + f)
  const r = await p.evaluate(() => {
    const w = document.documentElement.clientWidth
    const over = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > w + 1).map((e) => e.tagName + '.' + e.className + ':' + Math.round(e.getBoundingClientRect().right))
    return { w, sw: document.documentElement.scrollWidth, over: over.slice(0, 8), n: over.length }
  })
  console.log(f, JSON.stringify(r))
  await p.screenshot({ path: f + '.print.png', fullPage: true })
}
await b.close()
