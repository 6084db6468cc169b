// The debris snapshots a run keeps for its animation, bounded in bytes as well as in count: a
// snapshot is the thickness inside the debris' bounding box at full resolution, so a wide slide on a
// big grid holds megabytes a frame. Past either bound every other kept snapshot goes (the interval
// doubles), so the frames stay evenly spaced; the final state is always the last frame. The maps
// are built from them at the end in slices that let the event loop answer others in between.
import { MAX_FRAME_BYTES, MAX_THICKNESS_MAPS, type ThicknessMap } from '../../../shared/workloads/landslide/types'
import { Turns } from '../../workers/in-turns'
import { thicknessMapOf, thicknessWindow, snapshot, type Snapshot } from './grid-stats'

export { MAX_FRAME_BYTES }

export class FrameKeeper {
  private kept: { sample: number; snap: Snapshot }[] = []
  private bytes = 0
  private samples = 0
  /** Whether the byte budget (not the count) thinned the frames. */
  thinnedByBytes = false

  /** `stride`: samples between frames to begin with (chosen from the samples a run will take, for the count). */
  constructor(
    private readonly rows: number,
    private readonly cols: number,
    public stride = 1,
    private readonly maxBytes = MAX_FRAME_BYTES,
    private readonly maxFrames = MAX_THICKNESS_MAPS,
  ) {}

  /** The run's next sample, of the thickness `h` after `step` steps: kept as a frame when it falls on the interval. */
  offer(step: number, h: ArrayLike<number>): void {
    const sample = this.samples++
    if (sample % this.stride !== 0) return
    this.keep(sample, snapshot(step, h, this.rows, this.cols))
  }

  /** The frames, the final state (`h` after `step` steps) last: its own sample's frame or one made now. */
  finish(step: number, h: ArrayLike<number>): Snapshot[] {
    if (this.kept.at(-1)?.snap.step !== step) this.keep(Infinity, snapshot(step, h, this.rows, this.cols))
    return this.kept.map((k) => k.snap)
  }

  private keep(sample: number, snap: Snapshot): void {
    this.kept.push({ sample, snap })
    this.bytes += snap.h.byteLength
    // The first frame and the final state stay whatever the bounds.
    while ((this.bytes > this.maxBytes || this.kept.length > this.maxFrames) && this.kept.length > 2) {
      if (this.bytes > this.maxBytes) this.thinnedByBytes = true
      this.stride *= 2
      this.kept = this.kept.filter((k) => k.sample % this.stride === 0 || k.sample === Infinity)
      this.bytes = this.kept.reduce((sum, k) => sum + k.snap.h.byteLength, 0)
    }
  }
}

/** The maps of `snapshots` (thicknessMaps' window and reduction), made a few at a time between turns of the event loop. */
export async function thicknessMapsInTurns(snapshots: Snapshot[], gridRows: number, gridCols: number, signal?: AbortSignal): Promise<ThicknessMap[]> {
  const window = thicknessWindow(snapshots, gridRows, gridCols)
  const maps: ThicknessMap[] = []
  const turns = new Turns(signal)
  for (const s of snapshots) {
    maps.push(thicknessMapOf(s, window, gridRows, gridCols))
    await turns.maybe()
  }
  return maps
}
