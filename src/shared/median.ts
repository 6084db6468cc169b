// The median of timing samples (and of any small list): the middle value, or the mean of the two.
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values')
  const s = [...values].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
