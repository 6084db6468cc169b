// What a cluster run asks of Slurm, checked strictly: counts are digits only and bounded, --time is
// one of Slurm's forms and at most a year; which pending reasons mean a job can never start; which
// queue records a job id names (scancel itself says nothing of an id it does not know).
import { describe, expect, it } from 'vitest'
import { checkClusterRequest, checkCount, checkTime } from '../../src/shared/cluster'
import { neverStarts } from '../../src/main/cluster/follow'
import { findParalabJob, type QueueRecord } from '../../src/main/cluster/slurm-jobs'

describe('Slurm counts and time limits', () => {
  it('takes whole numbers written as digits, within bounds', () => {
    expect(checkCount('16', 'nodes', 100)).toBe(16)
    expect(checkCount(4, 'nodes', 100)).toBe(4)
    for (const bad of ['0x10', '1e2', '2.0', ' 3', '+3', '-1', '0', '', '101', 'Infinity', 1.5, 1e300, NaN, true, null])
      expect(() => checkCount(bad, 'nodes', 100), String(bad)).toThrow(/--nodes must be a whole number from 1 to 100/)
    expect(() => checkClusterRequest({ nodes: '0x10' })).toThrow(/--nodes must be a whole number from 1 to 100000, got "0x10"/)
  })

  it('takes Slurm\'s time forms up to a year, and UNLIMITED', () => {
    for (const ok of ['30', '90:30', '48:00:00', '1-12', '1-12:30', '1-12:30:15', '366-00:00:00', 'UNLIMITED', 'infinite', '527040'])
      expect(checkTime(ok), ok).toBe(ok)
    for (const bad of ['99999999999999999999', '527041', '367-0', '400-00:00:00'])
      expect(() => checkTime(bad), bad).toThrow(/is more than a year \(527040 minutes\); use UNLIMITED/)
    for (const bad of ['1-24', '1:60', '1:00:60', '2-3:75'])
      expect(() => checkTime(bad), bad).toThrow(/hours after days go up to 23, and minutes or seconds after another part up to 59/)
    for (const bad of ['1h', '1e3', '0x10', '-5', '1-', ':30', '1:2:3:4', '30 minutes'])
      expect(() => checkTime(bad), bad).toThrow(/--time must be minutes, minutes:seconds/)
  })
})

describe('a pending job', () => {
  it('can never start when Slurm says its partition cannot hold it, or its nodes are gone', () => {
    expect(neverStarts('PENDING', 'PartitionConfig')).toMatch(/reason PartitionConfig: it asks for more than its partition has or allows/)
    expect(neverStarts('PENDING', 'PartitionTimeLimit')).toMatch(/--time is longer than its partition allows/)
    expect(neverStarts('PENDING', 'ReqNodeNotAvail,_UnavailableNodes:n2')).toMatch(/ReqNodeNotAvail, UnavailableNodes:n2: nodes it needs are down/)
    for (const waits of ['Priority', 'Resources', 'Dependency', 'ReqNodeNotAvail', 'ReqNodeNotAvail,_UnavailableNodes:', 'JobHeldUser', 'None'])
      expect(neverStarts('PENDING', waits), waits).toBeUndefined()
    expect(neverStarts('RUNNING', 'PartitionConfig')).toBeUndefined()
  })
})

describe('a job id among Paralab\'s jobs', () => {
  const record = (over: Partial<QueueRecord>): QueueRecord => ({ job_id: 0, array_job_id: 0, array_task_id: null, array_task_string: '', name: 'paralab-stats', comment: 'paralab:/x', job_state: 'RUNNING', exit_code: 0, nodes: '', start_time: 0, end_time: 0, submit_time: 0, state_reason: 'None', ...over })
  const queue = [
    record({ job_id: 12 }),
    record({ job_id: 20, array_job_id: 20, array_task_id: 0 }),
    record({ job_id: 21, array_job_id: 20, array_task_id: 1 }),
    record({ job_id: 20, array_job_id: 20, array_task_id: null, array_task_string: '2-5%2', job_state: 'PENDING' }),
  ]

  it('names a job, an array, or one task of it, and nothing else', () => {
    expect(findParalabJob(queue, '12')?.job_id).toBe(12)
    expect(findParalabJob(queue, '20')?.array_job_id).toBe(20)
    expect(findParalabJob(queue, '20_1')?.job_id).toBe(21)
    expect(findParalabJob(queue, '20_4')?.array_task_string).toBe('2-5%2')
    for (const unknown of ['13', '99999999', '20_6', '12_0', '21_1']) expect(findParalabJob(queue, unknown), unknown).toBeUndefined()
  })
})
