// Values and names from a file, quoted for a message: short whatever the file holds, so a 10 MB
// line or a million column names stay a one-line error.
const QUOTE_LIMIT = 80

/** A value from the file, quoted for a message: at most 80 characters. */
export function quoteText(text: string): string {
  return JSON.stringify(text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text)
}

/** Names for a message: the first ones, then how many more. */
export function nameList(names: readonly string[], shown = 20): string {
  const listed = names.slice(0, shown).map(quoteText).join(', ')
  return names.length > shown ? `${listed}, … (${names.length - shown} more)` : listed
}
