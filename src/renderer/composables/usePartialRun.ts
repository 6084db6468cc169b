// The run a page shows, for the exports inside it: a partial run's charts and files say they are
// partial and what is missing (src/shared/workloads/partial.ts). WorkloadPage provides its run; a
// chart or export outside any page sees none.
import { computed, inject, provide, type ComputedRef, type InjectionKey } from 'vue'
import type { ResultEnvelope } from '../../shared/workloads/envelope'

type PartialRun = Pick<ResultEnvelope, 'partial' | 'missing'> | null

const KEY: InjectionKey<ComputedRef<PartialRun>> = Symbol('partial-run')

export function providePartialRun(run: () => PartialRun): void {
  provide(KEY, computed(run))
}

export function usePartialRun(): ComputedRef<PartialRun> {
  return inject(KEY, computed(() => null))
}
