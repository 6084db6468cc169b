// One TCP connection between two ranks, or with a stranger claiming to be one: its frame reader
// (bounded, checked before read), the frames of the handshake taken one at a time, then every later
// frame handed to the rank's handler; and when the peer was last heard from, for the rank timeout.
import type { Socket } from 'node:net'
import { ApiError } from '../../shared/errors'
import { type Frame, FrameReader } from './wire'

export class Link {
  readonly reader: FrameReader
  /** performance.now() when the peer last sent a byte (a monotonic clock: a wall-clock step is no silence). */
  lastHeard = performance.now()
  /** The connection has closed (either side). */
  closed = false
  /** Why the reader stopped: the peer sent what the protocol cannot carry. */
  invalid: string | undefined
  private early: Frame | undefined
  private waiter: { resolve(f: Frame): void; reject(e: Error): void } | undefined
  private handler: ((f: Frame) => void) | undefined
  private onInvalid: ((reason: string) => void) | undefined

  constructor(readonly socket: Socket) {
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`
    this.reader = new FrameReader(
      (f) => this.arrive(f),
      (reason) => {
        this.invalid = reason
        if (this.onInvalid) this.onInvalid(reason)
        else this.waiter?.reject(new Error(reason))
      },
    )
    socket.on('data', (chunk: Buffer) => {
      this.lastHeard = performance.now()
      this.reader.push(chunk)
    })
    socket.on('error', () => {})
    socket.once('close', () => {
      this.closed = true
      this.reader.stop()
      this.waiter?.reject(new Error('the connection closed'))
    })
  }

  /** Who is at the other end, for messages. */
  readonly remote: string

  /**
   * During the handshake the reader stops after each frame (and the socket with it) until the
   * frame has been checked: the next header is judged by the bound that check leaves.
   */
  private arrive(f: Frame): void {
    if (this.handler) return this.handler(f)
    this.reader.pause()
    this.socket.pause()
    if (this.waiter) {
      const w = this.waiter
      this.waiter = undefined
      w.resolve(f)
    } else this.early = f
  }

  private resume(): void {
    this.socket.resume()
    this.reader.resume()
  }

  /** The next frame of the handshake; rejects with `what` once `deadline` (ms since the epoch) passes, or when the connection fails. */
  next(deadline: number, what: string): Promise<Frame> {
    const early = this.early
    if (early) {
      this.early = undefined
      return Promise.resolve(early)
    }
    if (this.invalid) return Promise.reject(new Error(this.invalid))
    if (this.closed) return Promise.reject(new Error('the connection closed'))
    const got = new Promise<Frame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined
        reject(new ApiError('io', what))
      }, Math.max(0, deadline - Date.now()))
      this.waiter = {
        resolve: (f) => {
          clearTimeout(timer)
          resolve(f)
        },
        reject: (e) => {
          clearTimeout(timer)
          this.waiter = undefined
          reject(e)
        },
      }
    })
    this.resume()
    return got
  }

  /** Every later frame goes to `handler`; a frame the reader refuses, to `onInvalid`. */
  handOver(handler: (f: Frame) => void, onInvalid: (reason: string) => void): void {
    this.handler = handler
    this.onInvalid = onInvalid
    const early = this.early
    this.early = undefined
    if (early) handler(early)
    if (this.invalid) onInvalid(this.invalid)
    else this.resume()
  }

  /** Reads nothing more and closes the connection at once. */
  close(): void {
    this.reader.stop()
    this.socket.destroy()
  }
}
