// Numbers as charts print them: short, locale-independent, so an export reads the same everywhere.

const SUPERSCRIPT: Record<string, string> = {
  '-': '⁻', '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹',
}

/** `digits` significant digits; thousands grouped with commas in [1e-3, 1e9), `m×10ⁿ` outside; a true minus sign. */
export function formatNumber(value: number, digits = 3): string {
  if (Number.isNaN(value)) return 'NaN'
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '−∞'
  if (value === 0) return '0'
  if (value < 0) return `−${formatNumber(-value, digits)}`
  const rounded = Number(value.toPrecision(digits))
  if (rounded >= 1e-3 && rounded < 1e9) {
    const [int, frac] = String(rounded).split('.')
    const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
    return frac === undefined ? grouped : `${grouped}.${frac}`
  }
  const [mantissa, exponent] = rounded.toExponential().split('e')
  const power = `10${exponent.replace('+', '').replace(/./g, (c) => SUPERSCRIPT[c] ?? c)}`
  return mantissa === '1' ? power : `${mantissa}×${power}`
}
