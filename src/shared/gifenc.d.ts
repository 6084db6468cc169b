// The part of gifenc (which ships no types) that src/shared/gif-encoder.ts uses.
declare module 'gifenc' {
  export type Palette = number[][]
  export interface FrameOptions {
    palette?: Palette
    /** Milliseconds. */
    delay?: number
    /** -1 once, 0 forever, n more times. */
    repeat?: number
    transparent?: boolean
    transparentIndex?: number
    dispose?: number
  }
  export interface Encoder {
    writeFrame(index: Uint8Array, width: number, height: number, opts?: FrameOptions): void
    finish(): void
    bytes(): Uint8Array
  }
  export function GIFEncoder(opts?: { initialCapacity?: number; auto?: boolean }): Encoder
  export function quantize(rgba: Uint8Array | Uint8ClampedArray, maxColors: number, opts?: { format?: 'rgb565' | 'rgb444' | 'rgba4444' }): Palette
  export function applyPalette(rgba: Uint8Array | Uint8ClampedArray, palette: Palette, format?: 'rgb565' | 'rgb444' | 'rgba4444'): Uint8Array
}
