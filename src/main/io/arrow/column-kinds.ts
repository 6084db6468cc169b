// What each column of an Arrow schema holds, for the loader: numbers it reads (integers of 8 to 64
// bits, floats of 32 and 64, decimals of 32 to 256; dictionary-encoded ones of these, through
// integer indexes), or what else, for messages.
import { type Dictionary, Field, type Schema, Type } from 'apache-arrow'

export interface ArrowColumnKind {
  name: string
  /** What it holds, when not numbers. */
  holds?: string
}

/** The value field of each top-level dictionary-encoded numeric column, by dictionary id. */
export function numericDictionaries(schema: Schema): Map<number, Field> {
  const found = new Map<number, Field>()
  for (const f of schema.fields) {
    const values = dictionaryValues(f)
    if (values && arrowWidth(values)) found.set((f.type as Dictionary).id, values)
  }
  return found
}

/** A dictionary-encoded field's values as a field of their own type, or undefined for other fields. */
export function dictionaryValues(field: Field): Field | undefined {
  return field.type.typeId === Type.Dictionary ? new Field(field.name, (field.type as Dictionary).dictionary, true) : undefined
}

/** Bytes a value takes in a record batch's buffer of a numeric column this loader reads (a dictionary-encoded one's: its index), or undefined for other columns. */
export function storedWidth(field: Field): number | undefined {
  const values = dictionaryValues(field)
  if (!values) return arrowWidth(field)
  return arrowWidth(values) ? arrowWidth(new Field(field.name, (field.type as Dictionary).indices)) : undefined
}

/** Bytes a value takes in a numeric column this loader reads, or undefined for other columns. */
export function arrowWidth(field: Field): number | undefined {
  const t = field.type as unknown as { typeId: Type; bitWidth?: number; precision?: number }
  if (t.typeId === Type.Int) return [8, 16, 32, 64].includes(t.bitWidth!) ? t.bitWidth! / 8 : undefined
  if (t.typeId === Type.Decimal) return [32, 64, 128, 256].includes(t.bitWidth ?? 128) ? (t.bitWidth ?? 128) / 8 : undefined
  if (t.typeId === Type.Float) return t.precision === 2 ? 8 : t.precision === 1 ? 4 : undefined
  return undefined
}

/** Whether a field holds numbers this loader reads, or what it holds. */
export function arrowKind(field: Field): ArrowColumnKind {
  const t = field.type
  switch (t.typeId) {
    case Type.Int:
    case Type.Decimal:
      return arrowWidth(field) ? { name: field.name } : { name: field.name, holds: `numbers of ${(t as unknown as { bitWidth: number }).bitWidth} bits (not a width Arrow defines)` }
    case Type.Float:
      return (t as unknown as { precision: number }).precision === 0 ? { name: field.name, holds: 'half-precision floats (not read)' } : arrowWidth(field) ? { name: field.name } : { name: field.name, holds: 'floats of an unknown precision' }
    case Type.Utf8:
    case Type.LargeUtf8:
      return { name: field.name, holds: 'text' }
    case Type.Bool:
      return { name: field.name, holds: 'booleans' }
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Interval:
    case Type.Duration:
      return { name: field.name, holds: 'dates or times' }
    case Type.Dictionary: {
      const values = arrowKind(dictionaryValues(field)!)
      if (!values.holds) return storedWidth(field) ? { name: field.name } : { name: field.name, holds: 'dictionary indexes that are not integers of 8 to 64 bits' }
      return { name: field.name, holds: `dictionary-encoded ${values.holds}` }
    }
    default:
      return { name: field.name, holds: `values of type ${t.toString()}` }
  }
}
