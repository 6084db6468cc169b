// A synthetic landslide input for the GPU tests: a rough valley with a walled block and debris.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { splitLines } from '../../src/main/workloads/landslide/esri-grid'
import { parseLandslideInput, type LandslideInput } from '../../src/main/workloads/landslide/inputs'

/** A rough valley over `rows` × `cols` cells with a walled block, debris in a blob near the top. */
export function valley(rows: number, cols: number, seed: number): LandslideInput {
  const file = (t: string) => ({ shown: 'grid.asc', lines: splitLines(t) })
  return parseLandslideInput(valleyTexts(rows, cols, seed).map(file))
}

/** The valley's DEM and source as ESRI ASCII grids, written into `dir`: their paths. */
export function writeValley(dir: string, rows: number, cols: number, seed: number): [string, string] {
  const [dem, source] = valleyTexts(rows, cols, seed)
  const paths: [string, string] = [join(dir, 'valley-dem.asc'), join(dir, 'valley-source.asc')]
  writeFileSync(paths[0], dem)
  writeFileSync(paths[1], source)
  return paths
}

function valleyTexts(rows: number, cols: number, seed: number): [string, string] {
  let s = seed
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648)
  const header = `ncols ${cols}\nnrows ${rows}\nxllcorner 0\nyllcorner 0\ncellsize 5\nNODATA_value -9999\n`
  const dem: string[] = []
  const source: string[] = []
  for (let i = 0; i < rows; i++) {
    const d: string[] = []
    const h: string[] = []
    for (let j = 0; j < cols; j++) {
      const wall = i >= rows * 0.6 && i < rows * 0.7 && j >= cols * 0.5 && j < cols * 0.65
      d.push(wall ? '-9999' : (900 - 1.5 * i + 0.08 * (j - cols / 2) ** 2 + 0.3 * rand()).toFixed(3))
      const r2 = ((i - rows * 0.15) / 3) ** 2 + ((j - cols / 2) / 4) ** 2
      h.push(r2 < 1 ? (2 * (1 - r2)).toFixed(3) : '0')
    }
    dem.push(d.join(' '))
    source.push(h.join(' '))
  }
  return [header + dem.join('\n') + '\n', header + source.join('\n') + '\n']
}
