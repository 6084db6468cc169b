// Byte values the CSV parser looks for.
export const bytes = {
  TAB: 9,
  LF: 10,
  CR: 13,
  SPACE: 32,
  QUOTE: 34,
  PLUS: 43,
  COMMA: 44,
  MINUS: 45,
  DOT: 46,
  UPPER_E: 69,
  LOWER_E: 101,
} as const
