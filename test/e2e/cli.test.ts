// The built `paralab` command: help, exit codes, and the Device commands on the software adapter.
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { CLI } from '../helpers/serve'

function paralab(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('paralab CLI', () => {
  it('is built without any electron import and starts with a shebang', () => {
    const src = readFileSync(CLI, 'utf8')
    expect(src.startsWith('#!/usr/bin/env node')).toBe(true)
    expect(src).not.toMatch(/from ["']electron["']|require\(["']electron["']\)/)
  })

  it('prints help for the program and for each command', () => {
    const top = paralab(['--help'])
    expect(top.code).toBe(0)
    for (const cmd of ['device', 'bench device', 'serve']) expect(top.stdout).toContain(cmd)
    for (const cmd of [['device'], ['bench', 'device'], ['serve']]) {
      const r = paralab([...cmd, '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`Usage: paralab ${cmd.join(' ')}`)
    }
  })

  it('exits 2 with a one-line message on usage errors', () => {
    for (const args of [[], ['frobnicate'], ['bench'], ['device', '--nope'], ['bench', 'device', '--repeats', 'x']]) {
      const r = paralab(args)
      expect(r.code, args.join(' ')).toBe(2)
    }
    const r = paralab(['bench', 'device', '--repeats', 'x'])
    expect(r.stderr).toBe('paralab: --repeats must be an integer in 1…100, got "x"\n')
    expect(paralab(['frobnicate']).stderr).toBe('paralab: unknown command "frobnicate" (see paralab --help)\n')
  })

  it('device --json reports the software adapter with its limits', () => {
    const r = paralab(['device', '--json'])
    expect(r.code).toBe(0)
    const info = JSON.parse(r.stdout)
    expect(info.available).toBe(true)
    expect(info.adapter.isSoftware).toBe(true)
    expect(info.adapter.description).toMatch(/SwiftShader/i)
    expect(info.adapter.source).toMatch(/swiftshader/i)
    expect(info.limits.maxStorageBufferBindingSize).toBeGreaterThan(0)
    expect(info.limits.maxComputeInvocationsPerWorkgroup).toBeGreaterThanOrEqual(256)
  })

  it('reports the GPU as unavailable, without failing, when there is none', () => {
    const r = paralab(['device', '--json'], { PARALAB_GPU: 'off' })
    expect(r.code).toBe(0)
    const info = JSON.parse(r.stdout)
    expect(info.available).toBe(false)
    expect(info.reason).toMatch(/PARALAB_GPU=off/)
  })

  it('bench device --json prints figures with units in the keys', () => {
    const r = paralab(['bench', 'device', '--json', '--read-mb', '4', '--repeats', '2'])
    expect(r.code, r.stderr).toBe(0)
    const b = JSON.parse(r.stdout)
    for (const key of ['read_bandwidth_GB_per_s', 'fma_f32_GFLOP_per_s', 'upload_GB_per_s', 'readback_GB_per_s']) {
      expect(Number.isFinite(b[key]) && b[key] > 0, key).toBe(true)
    }
    expect(b.read_bytes).toBe(4e6)
    expect(b.adapter.isSoftware).toBe(true)
  })

  it('bench device fails with one line naming the cause when the GPU is unavailable', () => {
    const r = paralab(['bench', 'device'], { PARALAB_GPU: 'off' })
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^paralab: .*PARALAB_GPU=off/)
  })
})
