// A rank of a test job (run with jiti by the local launcher): connects through the ranks module and
// does what argv[2] asks, printing one JSON line on success; on failure, the error on stderr, exit 1.
import { ApiError } from '../../src/shared/errors'
import { placementFromEnv } from '../../src/main/ranks/placement'
import { Ranks } from '../../src/main/ranks/ranks'

async function main(): Promise<void> {
  const placement = placementFromEnv(process.env)!
  const rankTimeout = process.env.RANKS_RANK_TIMEOUT_MS
  const ranks = await Ranks.connect(placement, { timeoutMs: Number(process.env.RANKS_TIMEOUT_MS ?? 20_000), ...(rankTimeout && { rankTimeoutMs: Number(rankTimeout) }) })
  const action = process.argv[2]
  try {
    // 'slow': says it is connected, then waits a while before the exchange (time for a test to stop a rank).
    if (action === 'slow') {
      process.stderr.write('connected\n')
      await new Promise((r) => setTimeout(r, Number(process.argv[3])))
    }
    // Every rank sends its rank to the next and receives from the previous (a ring), then gathers.
    const next = (ranks.rank + 1) % ranks.size
    const previous = (ranks.rank + ranks.size - 1) % ranks.size
    if (action === 'die' && ranks.rank === Number(process.argv[3])) process.kill(process.pid, 'SIGKILL')
    if (action === 'throw' && ranks.rank === Number(process.argv[3])) throw new Error('a deliberate failure')
    ranks.send(next, 7, Float64Array.of(ranks.rank + 0.5, -1))
    const got = await ranks.recv(previous, 7, Float64Array)
    await ranks.barrier()
    const all = await ranks.gather(Int32Array.of(ranks.rank * 10), Int32Array)
    const shared = await ranks.broadcast(ranks.rank === 0 ? Uint8Array.of(42, 43) : undefined, Uint8Array)
    await ranks.close()
    process.stdout.write(JSON.stringify({ rank: ranks.rank, got: [...got], all: all && all.map((a) => a[0]), shared: [...shared] }) + '\n')
  } catch (e) {
    if (!ranks.error) await ranks.abort(e instanceof Error ? e.message : String(e))
    throw ranks.error ?? e
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`rank error: ${ApiError.from(e).message}\n`)
    process.exit(1)
  },
)
