// `node scripts/require-node.mjs 22.12 "what"`: fails with a clear message when this Node.js is older.
// Paralab and its tests run on Node.js 20.19; packaging installers needs 22.12 (electron-builder's
// @electron/rebuild and node-abi declare it).
const [wanted, what = 'this'] = process.argv.slice(2)
const have = process.versions.node.split('.').map(Number)
const need = wanted.split('.').map(Number)
const first = need.findIndex((n, i) => (have[i] ?? 0) !== n)
if (first >= 0 && (have[first] ?? 0) < need[first]) {
  console.error(`${what} needs Node.js ≥ ${wanted}; this is ${process.versions.node}.`)
  process.exit(1)
}
