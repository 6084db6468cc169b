// What the landslide reads, whatever the files' format: the DEM, the initial thickness and the walls on one grid.
import type { GeoTags } from '../../io/geotiff/read-raster'
import type { GridCrs } from '../../../shared/workloads/landslide/types'
import type { GridHeader } from './esri-grid'

export interface LandslideInput {
  rows: number
  cols: number
  /** The DEM's header (the header file's in the study's form). */
  header: GridHeader
  /** Elevations as read (the source is carved out of them when a simulation starts). */
  z: Float64Array
  /** Debris thickness; NODATA cells of the source read as 0. */
  h: Float64Array
  /** 1 where the DEM holds NODATA: walls. Null when there are none. */
  walls: Uint8Array | null
  wallCount: number
  /** Paths by role, as given. */
  files: { dem: string; source: string; header?: string }
  /** The DEM's georeferencing tags when it is a GeoTIFF, for GeoTIFFs written from the run. */
  geo?: GeoTags
  /** The DEM's CRS when its file states one (a GeoTIFF's GeoKeys); absent: unknown. */
  crs?: GridCrs
  /** The files' grids repeated so (tiled-grid.ts); absent: as read. */
  tile?: { rows: number; cols: number }
}
