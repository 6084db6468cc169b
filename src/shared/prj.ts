// The `.prj` that GIS tools read beside an ESRI ASCII grid: the CRS as ESRI WKT, spelled as GDAL
// writes it, so that GDAL and QGIS identify it again by its EPSG code. Without a copy of the EPSG
// dataset only systems whose definition follows from their code can be written: the UTM zones on
// WGS 84 (north 326zz, south 327zz), ETRS89 (258zz) and NAD83 (269zz).

interface UtmFamily {
  first: number
  last: number
  base: number
  south: boolean
  /** PROJCS name prefix, then the GEOGCS, DATUM and SPHEROID as ESRI spells them. */
  prefix: string
  geogcs: string
  datum: string
  spheroid: string
}

const WGS84 = { geogcs: 'GCS_WGS_1984', datum: 'D_WGS_1984', spheroid: 'SPHEROID["WGS_1984",6378137.0,298.257223563]' }
const GRS80 = 'SPHEROID["GRS_1980",6378137.0,298.257222101]'

const UTM_FAMILIES: UtmFamily[] = [
  { first: 32601, last: 32660, base: 32600, south: false, prefix: 'WGS_1984', ...WGS84 },
  { first: 32701, last: 32760, base: 32700, south: true, prefix: 'WGS_1984', ...WGS84 },
  { first: 25828, last: 25838, base: 25800, south: false, prefix: 'ETRS_1989', geogcs: 'GCS_ETRS_1989', datum: 'D_ETRS_1989', spheroid: GRS80 },
  { first: 26901, last: 26923, base: 26900, south: false, prefix: 'NAD_1983', geogcs: 'GCS_North_American_1983', datum: 'D_North_American_1983', spheroid: GRS80 },
]

/** The ESRI WKT of EPSG `code`, or null for a system this module cannot spell out. */
export function prjText(code: number | null): string | null {
  const family = code === null ? undefined : UTM_FAMILIES.find((f) => code >= f.first && code <= f.last)
  if (!family || code === null) return null
  const zone = code - family.base
  const meridian = zone * 6 - 183
  return (
    `PROJCS["${family.prefix}_UTM_Zone_${zone}${family.south ? 'S' : 'N'}",` +
    `GEOGCS["${family.geogcs}",DATUM["${family.datum}",${family.spheroid}],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],` +
    `PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",${family.south ? '10000000.0' : '0.0'}],` +
    `PARAMETER["Central_Meridian",${meridian.toFixed(1)}],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]`
  )
}

/** The `.prj` path beside an `.asc` (its extension replaced, as GDAL names it). */
export function prjPathBeside(path: string): string {
  return /\.[^./\\]*$/.test(path) ? path.replace(/\.[^./\\]*$/, '.prj') : `${path}.prj`
}
