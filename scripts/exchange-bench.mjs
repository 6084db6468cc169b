// How fast one process hands rows of bytes to others on the same machine: over TCP loopback (a
// length-prefixed frame, reassembled as the ranks' wire does) or through a file in /dev/shm (the
// sender writes a slot of it, a 9-byte notice over TCP says which, each receiver reads it into
// memory of its own). Prints one JSON line per case: bytes, messages, receivers, ms, GB/s delivered.
//   node scripts/exchange-bench.mjs [--bytes 10485760] [--messages 200] [--receivers 1,3]
import { fork } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { join } from 'node:path'

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}

/** Frames of `[u32 length][u8 kind][payload]` from a socket, each payload in one buffer. */
function frames(socket, onFrame) {
  let chunks = []
  let have = 0
  let need = -1
  socket.on('data', (c) => {
    chunks.push(c)
    have += c.length
    for (;;) {
      if (need < 0) {
        if (have < 5) return
        const head = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
        chunks = [head]
        need = head.readUInt32LE(0) + 5
      }
      if (have < need) return
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
      onFrame(all.subarray(5, need))
      const rest = all.subarray(need)
      chunks = rest.length ? [rest] : []
      have = rest.length
      need = -1
    }
  })
}

const frame = (payload) => {
  const head = Buffer.alloc(5)
  head.writeUInt32LE(payload.length, 0)
  return [head, payload]
}

if (process.argv[2] === '--receiver') {
  // A receiver: connects, takes `messages` rows (TCP: the frames; shm: notices, then reads the slot), answers 'done'.
  const [, , , port, mode, file, bytesText] = process.argv
  const bytes = Number(bytesText)
  const socket = connect({ port: Number(port), host: '127.0.0.1' })
  socket.setNoDelay(true)
  const fd = mode === 'shm' ? openSync(file, 'r') : -1
  const mine = Buffer.alloc(bytes)
  let sum = 0
  frames(socket, (payload) => {
    if (mode === 'tcp') {
      if (payload.length === 0) return void socket.end(Buffer.from('done'))
      sum += payload[payload.length - 1]
    } else {
      const slot = payload[0]
      if (slot === 255) return void socket.end(Buffer.from('done'))
      readSync(fd, mine, 0, bytes, slot * bytes)
      sum += mine[bytes - 1]
    }
    socket.write(Buffer.from([1]))
  })
  socket.on('close', () => process.exit(sum >= 0 ? 0 : 1))
} else {
  const bytes = Number(arg('bytes', String(10 * 2 ** 20)))
  const messages = Number(arg('messages', '200'))
  const counts = arg('receivers', '1,3').split(',').map(Number)
  const dir = mkdtempSync(join('/dev/shm', 'paralab-exchange-'))
  try {
    for (const receivers of counts)
      for (const mode of ['tcp', 'shm']) {
        const file = join(dir, `${mode}-${receivers}`)
        const fd = mode === 'shm' ? openSync(file, 'wx+', 0o600) : -1
        if (fd >= 0) writeSync(fd, Buffer.alloc(2 * bytes), 0, 2 * bytes, 0)
        const server = createServer()
        await new Promise((r) => server.listen(0, '127.0.0.1', r))
        const sockets = []
        const children = Array.from({ length: receivers }, () => fork(new URL(import.meta.url).pathname, ['--receiver', String(server.address().port), mode, file, String(bytes)]))
        await new Promise((r) =>
          server.on('connection', (s) => {
            s.setNoDelay(true)
            sockets.push(s)
            if (sockets.length === receivers) r()
          }),
        )
        const row = Buffer.alloc(bytes, 7)
        // Each receiver acknowledges each row (one byte): at most two rows are outstanding, as two slots allow.
        let acked = sockets.map(() => 0)
        const waiters = []
        sockets.forEach((s, i) =>
          s.on('data', (d) => {
            for (const b of d) if (b === 1) acked[i]++
            for (const w of waiters.splice(0)) w()
          }),
        )
        const until = (k) => new Promise((r) => (acked.every((a) => a >= k) ? r() : waiters.push(() => until(k).then(r))))
        const t0 = performance.now()
        for (let m = 0; m < messages; m++) {
          if (m >= 2) await until(m - 1)
          if (mode === 'tcp') for (const s of sockets) s.write(Buffer.concat(frame(row)))
          else {
            writeSync(fd, row, 0, bytes, (m % 2) * bytes)
            for (const s of sockets) s.write(Buffer.concat(frame(Buffer.from([m % 2]))))
          }
        }
        await until(messages)
        const ms = performance.now() - t0
        for (const s of sockets) s.write(Buffer.concat(frame(mode === 'tcp' ? Buffer.alloc(0) : Buffer.from([255]))))
        await Promise.all(children.map((c) => new Promise((r) => c.on('exit', r))))
        server.close()
        if (fd >= 0) closeSync(fd)
        console.log(JSON.stringify({ mode, bytes, messages, receivers, ms: Math.round(ms), GB_per_s_delivered: +((bytes * messages * receivers) / ms / 1e6).toFixed(2), ms_per_message: +(ms / messages).toFixed(3) }))
      }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
