// A GeoTIFF's coordinate reference system as its GeoKeys state it (GeoTIFF 1.1, OGC 19-008r4):
// the model type (projected, geographic, geocentric), the EPSG code of the projected or geographic
// system, its citation (the name GDAL writes) and the linear unit in metres. What the keys leave
// unsaid stays unknown: a grid without GeoKeys has no CRS (as GDAL reads one).
import type { GeoTags } from './read-raster'

export type CrsKind = 'projected' | 'geographic' | 'geocentric' | 'unknown'

export interface Crs {
  kind: CrsKind
  /** The EPSG code of the projected (or, for a geographic one, the geographic) system; null when user-defined or unsaid. */
  epsg: number | null
  /** Its name: the citation the file holds, else `EPSG:<code>`, else 'user-defined' (a kind without a code), else 'unknown'. */
  name: string
  /** Projected: the linear unit, its EPSG code and metres per unit, where known. */
  unit?: { code: number; metres: number | null; name: string }
}

const MODEL_TYPE = 1024
const CITATION = 1026
const GEOGRAPHIC_TYPE = 2048
const GEOG_CITATION = 2049
const PROJECTED_TYPE = 3072
const PCS_CITATION = 3073
const PROJ_LINEAR_UNITS = 3076
const PROJ_LINEAR_UNIT_SIZE = 3077
/** GeoKey value for "user-defined". */
const USER_DEFINED = 32767

/** Linear units by EPSG code: metres per unit, and a name. */
const LINEAR_UNITS: Record<number, [number, string]> = {
  9001: [1, 'metre'],
  9002: [0.3048, 'foot'],
  9003: [1200 / 3937, 'US survey foot'],
  9036: [1000, 'kilometre'],
  9005: [0.3047972654, 'Clarke\'s foot'],
  9014: [1.8288, 'fathom'],
  9030: [1852, 'nautical mile'],
  9037: [0.91439523, 'Clarke\'s yard'],
  9096: [0.9144, 'yard'],
}

/** The CRS the GeoKeys describe; `unknown` when the file has none. */
export function crsOf(geo: Pick<GeoTags, 'geoKeyDirectory' | 'geoDoubleParams' | 'geoAsciiParams'>): Crs {
  const dir = geo.geoKeyDirectory
  if (!dir || dir.length < 4) return { kind: 'unknown', epsg: null, name: 'unknown' }
  const keys = new Map<number, number | string>()
  for (let i = 4; i + 3 < dir.length && keys.size < dir[3]; i += 4) {
    const [id, location, count, offset] = dir.slice(i, i + 4)
    if (location === 0) keys.set(id, offset)
    else if (location === 34737 && geo.geoAsciiParams !== undefined) keys.set(id, geo.geoAsciiParams.slice(offset, offset + count).replace(/[|\0]+$/, '').trim())
    else if (location === 34736 && geo.geoDoubleParams && count >= 1 && offset < geo.geoDoubleParams.length) keys.set(id, geo.geoDoubleParams[offset])
  }
  const num = (id: number) => (typeof keys.get(id) === 'number' ? (keys.get(id) as number) : undefined)
  const text = (id: number) => (typeof keys.get(id) === 'string' && keys.get(id) !== '' ? (keys.get(id) as string) : undefined)
  const code = (id: number) => {
    const v = num(id)
    return v !== undefined && v > 0 && v !== USER_DEFINED ? v : null
  }
  const model = num(MODEL_TYPE)
  const projected = code(PROJECTED_TYPE)
  const geographic = code(GEOGRAPHIC_TYPE)
  // The model type decides; files without it are read by which system they name, as GDAL does.
  const kind: CrsKind =
    model === 1 ? 'projected' : model === 2 ? 'geographic' : model === 3 ? 'geocentric' : projected !== null ? 'projected' : geographic !== null ? 'geographic' : 'unknown'
  const epsg = kind === 'projected' ? projected : kind === 'geographic' ? geographic : null
  const cited = kind === 'projected' ? (text(PCS_CITATION) ?? text(CITATION)) : (text(GEOG_CITATION) ?? text(CITATION))
  const name = cited ?? (epsg !== null ? `EPSG:${epsg}` : kind === 'unknown' ? 'unknown' : 'user-defined')
  const crs: Crs = { kind, epsg, name }
  if (kind === 'projected') {
    const unitCode = num(PROJ_LINEAR_UNITS)
    // An EPSG projected system without the key is in its own unit: metres for nearly all (UTM, LAEA, national grids).
    if (unitCode === undefined) crs.unit = { code: 9001, metres: 1, name: 'metre' }
    else {
      const known = LINEAR_UNITS[unitCode]
      const size = num(PROJ_LINEAR_UNIT_SIZE)
      crs.unit = { code: unitCode, metres: known?.[0] ?? (unitCode === USER_DEFINED && size !== undefined && size > 0 ? size : null), name: known?.[1] ?? `unit ${unitCode}` }
    }
  }
  return crs
}

/**
 * The EPSG code of the WGS 84 UTM zone holding (lon, lat) in degrees, for a `gdalwarp -t_srs`
 * hint; null for coordinates that are not longitudes and latitudes.
 */
export function utmZoneEpsg(lon: number, lat: number): number | null {
  if (!(Math.abs(lon) <= 180 && Math.abs(lat) <= 84)) return null
  const zone = Math.min(60, Math.floor((lon + 180) / 6) + 1)
  return (lat >= 0 ? 32600 : 32700) + zone
}
