// A correlation job for Compare: each backend's steps 2–5 and each GPU kernel's stage, their work
// the pairs' products (kernels: their counted FLOPs), their checks the arithmetic and max |Δr|.
import { checkValue, type ComparableRun, type RunCost } from '../comparable'
import type { ResultEnvelope } from '../envelope'
import type { Arithmetic, CorrelationResult } from './types'

/**
 * Steps 2–5 of m series of n samples: a sum per sample (means), a subtract and a multiply-add per
 * sample (centring and √Σ(x − x̄)²), a multiply-add per sample and pair (cross-products: the m·m·n / 2
 * that dominate), a multiply and a divide per pair (coefficients); the series read and the m × m
 * matrix written once, in the arithmetic's width.
 */
export function correlationCost(m: number, n: number, arithmetic: Arithmetic): RunCost {
  const pairs = (m * (m - 1)) / 2
  const width = arithmetic === 'f64' ? 8 : 4
  return { flop: 4 * m * n + 2 * pairs * n + 2 * pairs, bytes: (m * n + m * m) * width }
}

export function correlationCompared(envelope: ResultEnvelope<CorrelationResult>): ComparableRun[] {
  const { input, runs, ranking } = envelope.results
  const repeat = (envelope.params as { repeat?: number } | undefined)?.repeat ?? 1
  const pairs = (input.series * (input.series - 1)) / 2
  const flagged = { name: 'flagged series', value: String(ranking.filter((e) => e.flagged).length) }
  return runs.flatMap((run) => [
    {
      input: input.path,
      backend: run.backend,
      variant: '',
      timing: envelope.timings[run.backend] ?? { ...run.total, runs: repeat },
      work: { count: pairs * input.length, unit: 'pair·sample' },
      cost: correlationCost(input.series, input.length, run.arithmetic),
      ...(run.compile_ms !== undefined && { compile_ms: run.compile_ms }),
      checks: [{ name: 'arithmetic', value: run.arithmetic }, { name: 'max |Δr|', value: checkValue(run.max_abs_dr, 3) }, flagged],
    },
    ...(run.variants ?? []).map((v) => ({
      input: input.path,
      backend: run.backend,
      variant: `${v.stage}-${v.variant}`,
      timing: envelope.timings[`${run.backend} ${v.stage}-${v.variant}`] ?? { ...v.ms, runs: repeat },
      work: { count: v.flop, unit: 'FLOP' },
      cost: { flop: v.flop, bytes: v.bytes },
      checks: [{ name: v.stage === 'means' ? 'max relative error of a mean' : 'max |Δr|', value: checkValue(v.deviation, 3) }],
    })),
  ])
}
