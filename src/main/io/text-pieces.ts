// Text written as UTF-8 pieces of a fixed size, encoded as it is put: the writers of big text files
// (a CSV of a 16 384² matrix, a landslide grid as .asc, Matrix Market) put cell after cell and hand
// on each piece once it is full. No string longer than a cell is made: a joined row or a megabyte of
// text would be a large object that only a full collection frees, and the memory of a server
// streaming gigabytes of text would grow with it. Each piece is a buffer of its own, never written
// again once handed on (a socket may still hold it) — unless the writer is made to `reuse` them for
// a consumer that is done with a piece once it asks for the next (a download written piece by piece,
// writeFileAtomic): then a few buffers go round, and no megabyte of garbage a piece waits for a
// collection (V8 collects ArrayBuffers only once some 64 MiB of them are garbage).
/** Bytes of a piece. */
export const PIECE_BYTES = 1 << 20

export class TextPieces {
  private piece: Uint8Array
  private at = 0
  private readonly full: Uint8Array[] = []
  private readonly encoder = new TextEncoder()

  /** Buffers handed on and given back (with `reuse`): written into again. */
  private readonly spare: ArrayBuffer[] = []

  /** `counted.bytes` adds up the bytes of the pieces taken; `reuse`: a piece is valid until the next is asked for. */
  constructor(
    private readonly pieceBytes = PIECE_BYTES,
    private readonly counted: { bytes: number } = { bytes: 0 },
    private readonly reuse = false,
  ) {
    this.piece = new Uint8Array(pieceBytes)
  }

  /** Appends `text`. */
  put(text: string): void {
    const n = text.length
    // Most texts are short ASCII (numbers, separators): copied code by code.
    if (n <= this.pieceBytes - this.at) {
      const piece = this.piece
      const at = this.at
      let i = 0
      for (; i < n; i++) {
        const c = text.charCodeAt(i)
        if (c > 0x7f) break
        piece[at + i] = c
      }
      this.at += i
      if (i === n) return
      text = text.slice(i)
    }
    // The rest, any text, as many pieces as it fills.
    for (;;) {
      const { read, written } = this.encoder.encodeInto(text, this.piece.subarray(this.at))
      this.at += written
      if (read === text.length) return
      text = text.slice(read)
      this.next()
    }
  }

  /** Pieces filled since the last call (none while the current one has room). */
  *filled(): Generator<Uint8Array> {
    while (this.full.length > 0) yield* this.handOn(this.full.shift()!)
  }

  /** Every piece left, the last one partly filled. */
  *rest(): Generator<Uint8Array> {
    yield* this.filled()
    if (this.at > 0) {
      const last = this.piece.subarray(0, this.at)
      this.piece = this.fresh()
      this.at = 0
      yield* this.handOn(last)
    }
  }

  private next(): void {
    this.full.push(this.piece.subarray(0, this.at))
    this.piece = this.fresh()
    this.at = 0
  }

  private fresh(): Uint8Array {
    const spare = this.spare.pop()
    return spare ? new Uint8Array(spare) : new Uint8Array(this.pieceBytes)
  }

  /** Yields `piece`; with `reuse`, its buffer is written into again once the next piece is asked for. */
  private *handOn(piece: Uint8Array): Generator<Uint8Array> {
    this.counted.bytes += piece.length
    yield piece
    if (this.reuse) this.spare.push(piece.buffer as ArrayBuffer)
  }
}

/**
 * Texts as UTF-8 pieces of `pieceBytes` (the last shorter), made as they are asked for: a writer
 * holds one piece whatever the file's size. `counted.bytes` is the total once all are taken.
 */
export function* textPieces(texts: Iterable<string>, counted: { bytes: number } = { bytes: 0 }, pieceBytes = PIECE_BYTES): Generator<Uint8Array> {
  const out = new TextPieces(pieceBytes, counted)
  for (const t of texts) {
    out.put(t)
    yield* out.filled()
  }
  yield* out.rest()
}

/** Pieces joined into one buffer of its own (offset 0), for the callers that want a file whole. */
export function joinPieces(pieces: Iterable<Uint8Array>): Uint8Array {
  const list = [...pieces]
  const out = new Uint8Array(list.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of list) {
    out.set(p, at)
    at += p.length
  }
  return out
}
