// The Content Security Policy the dashboard runs under: the header `paralab serve` sends with every
// response, and the <meta> the build writes into index.html for the desktop app's file: page.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONTENT_SECURITY_POLICY, metaPolicy } from '../../src/main/csp'
import { startServe, type ServeProcess } from '../helpers/serve'

/** The policy's directives, by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name, values]))
}

/** The content of the page's Content-Security-Policy <meta>, or null. */
function metaOf(html: string): string | null {
  return /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html)?.[1] ?? null
}

describe('the dashboard\'s policy', () => {
  it('runs only the app\'s own scripts, embeds nothing and is embedded nowhere', () => {
    const d = directives(CONTENT_SECURITY_POLICY)
    expect(d.get('default-src')).toEqual(["'self'"])
    expect(d.get('script-src')).toEqual(["'self'"])
    expect(d.get('object-src')).toEqual(["'none'"])
    expect(d.get('base-uri')).toEqual(["'none'"])
    expect(d.get('frame-ancestors')).toEqual(["'none'"])
    expect(d.get('form-action')).toEqual(["'none'"])
    // The page talks to its own origin, and to a serve on this machine (an SSH tunnel's end).
    expect(d.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:*', 'ws://localhost:*'])
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*\.|(?<![:/\w])\*(?![\w])/)
  })

  it('is stated in the built index.html\'s <meta>, less the directives a <meta> cannot carry', () => {
    const html = readFileSync(resolve('out/renderer/index.html'), 'utf8')
    expect(metaOf(html)).toBe(metaPolicy())
    expect(directives(metaPolicy())).toEqual(new Map([...directives(CONTENT_SECURITY_POLICY)].filter(([name]) => name !== 'frame-ancestors')))
    expect(html).not.toContain('%PARALAB_')
  })
})

describe('paralab serve', () => {
  let serve: ServeProcess
  beforeAll(async () => {
    serve = await startServe()
  })
  afterAll(() => serve?.stop())

  it('sends the policy with the dashboard page, its scripts and its refusals', async () => {
    const page = await fetch(serve.url)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    const html = await page.text()
    expect(metaOf(html)).toBe(metaPolicy())

    const script = /<script type="module" crossorigin src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1]
    expect(script).toBeDefined()
    const asset = await fetch(`${serve.base}${script}?token=${serve.token}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)

    const missing = await fetch(`${serve.base}no-such-file.js?token=${serve.token}`)
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
  })
})
