// bench headline --against CLI[,NAME=CLI…]: the builds after the first are named series; a bad name
// or a missing file is refused before any bench runs.
import { describe, expect, it } from 'vitest'
import { benchHeadlineCommand } from '../../src/main/cli/commands/headline'
import { UsageError } from '../../src/main/terminal/command'

const cli = 'package.json' // a file that exists: the refusals below come before anything runs it

describe('bench headline --against', () => {
  it.each([
    [`${cli},${cli}`, /NAME=CLI/],
    [`${cli},this=${cli}`, /not this, release/],
    [`${cli},release=${cli}`, /not this, release/],
    [`${cli},cuda-f32=${cli}`, /not this, release or cuda/],
    [`${cli},Pre=${cli}`, /lower-case/],
    [`${cli},pre=no/such/cli.js`, /no such file/],
    ['no/such/cli.js,pre=package.json', /no such file/],
  ])('refuses %s', async (against, message) => {
    const run = benchHeadlineCommand.run({ against, 'no-saved': true }, [])
    await expect(run).rejects.toBeInstanceOf(UsageError)
    await expect(run).rejects.toThrow(message)
  })
})
