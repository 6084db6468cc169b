import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { intOption, type Command } from '../../terminal/command'

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Serve the dashboard and its API on 127.0.0.1, for a browser on this machine (or through an SSH tunnel).',
  usage: 'paralab serve [--port N] [--data DIR]…',
  help: [
    '  --port N     port to listen on (default: a free port)',
    '  --data DIR   a folder whose files the dashboard may open; repeat for more. Nothing else is readable.',
  ].join('\n'),
  options: { port: { type: 'string' }, data: { type: 'string', multiple: true } },
  async run(values) {
    const port = intOption(values.port, 'port', 0, 65535)
    const dataDirs: string[] = values.data ?? []
    if (dataDirs.length === 0) process.stderr.write('note: no --data folder given: the dashboard can open no files\n')
    // The server (its API, the dashboard's files, the content policy) loads only for this command.
    const { startServer } = await import('../../serve')
    const server = await startServer({ port, dataDirs, rendererDir: rendererDir() })
    process.stdout.write(`Paralab dashboard: ${server.url}\n`)
    process.stderr.write('Press Ctrl-C to stop.\n')
    await new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void server.close().then(resolve))
    })
    return 0
  },
}

/** The built dashboard beside the built CLI: out/main/cli.js → out/renderer. */
function rendererDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'renderer')
}
