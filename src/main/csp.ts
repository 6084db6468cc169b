// The dashboard's Content Security Policy: sent as a header by `serve`, and written into the built
// index.html's <meta> (electron.vite.config.ts) for the desktop app's file: page, which has no headers.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ')

/** Directives a <meta> policy may not carry (browsers ignore them there, with a console warning). */
const HEADER_ONLY = ['frame-ancestors', 'report-uri', 'sandbox']

/** The policy as a <meta http-equiv> may state it: the header's, less its header-only directives. */
export function metaPolicy(policy: string = CONTENT_SECURITY_POLICY): string {
  return policy
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d && !HEADER_ONLY.includes(d.split(/\s+/)[0]))
    .join('; ')
}

/** Where index.html's <meta> takes the policy at build time. */
export const CSP_PLACEHOLDER = '%PARALAB_CONTENT_SECURITY_POLICY%'
