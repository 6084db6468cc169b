// A landslide result file asked of `paralab serve` for results a request made up: the final grid is
// simulated again for the results' steps, so those steps are bounded as a run's are, and the
// simulation stops when the connection that asked for it closes (the server's CPU time is read
// from /proc to see it stop).
import { readFileSync, readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectApi } from '../helpers/api-client'
import { startServe, type ServeProcess } from '../helpers/serve'

const DATA = '/work/shared/data/landslide'
const grid = { header: `${DATA}/tessina_header.txt`, dem: `${DATA}/tessina_dem.txt`, source: `${DATA}/tessina_source.txt` }
const results = (steps: number) => ({ grid: { files: grid }, reference: { md5: '0'.repeat(32) }, steps })
const request = (steps: number) => ({ workload: 'landslide', results: results(steps), file: 'final.asc', fileName: 'final.asc' })

let serve: ServeProcess
beforeAll(async () => {
  serve = await startServe(['--data', DATA])
}, 60_000)
afterAll(() => serve?.stop())

/** CPU seconds (user + system) of the `paralab serve` child of this process, all its threads. */
function serveCpuSeconds(): number {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[1]) !== process.pid || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('serve')) continue
      return (Number(fields[11]) + Number(fields[12])) / 100
    } catch {
      // gone meanwhile
    }
  }
  throw new Error('no paralab serve process')
}

/** CPU seconds the server spends over the next `ms`. */
async function cpuOver(ms: number): Promise<number> {
  const before = serveCpuSeconds()
  await new Promise((r) => setTimeout(r, ms))
  return serveCpuSeconds() - before
}

describe('exportResultFile of the landslide', () => {
  it('refuses steps a run could not have, as a run\'s parameters are refused', async () => {
    const api = await connectApi(serve)
    try {
      for (const steps of [1e300, 1_000_001, -1, 2.5])
        await expect(api.call('exportResultFile', request(steps))).rejects.toThrow(`landslide: parameter steps must be an integer in 0…1000000; got ${steps}`)
    } finally {
      api.close()
    }
  })

  it('stops simulating again when the connection that asked closes', async () => {
    const api = await connectApi(serve)
    // A million steps of the Tessina grid: far longer than this test.
    void api.call('exportResultFile', request(1_000_000)).catch(() => undefined)
    await expect.poll(() => cpuOver(1000), { timeout: 30_000, interval: 0 }).toBeGreaterThan(0.5)
    api.close()
    // Once the simulation has stopped, the server idles (a second of CPU over a few seconds would be the simulation still running).
    await expect.poll(() => cpuOver(2000), { timeout: 20_000, interval: 0 }).toBeLessThan(0.3)
    // And it still answers.
    const again = await connectApi(serve)
    expect(await again.call('listDataFiles')).toEqual(expect.any(Array))
    again.close()
  }, 60_000)
})
