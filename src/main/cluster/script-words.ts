// Values as they land in a generated job script, one function for each place a value can land:
// a bash word, the argument of a `#SBATCH` line (and a Slurm file name pattern inside it), and the
// text of a `#` comment. A value that a place cannot carry is refused, naming it; nothing is ever
// pasted into a script as text.
import { ApiError } from '../../shared/errors'

/** C0 controls, DEL and C1 controls: what bash or sbatch would read as the end of a line or cannot show. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g
/** Characters that mean nothing to bash or to sbatch's line parser: written as they are. */
const PLAIN = /^[\w@%+=:,./-]+$/

/** Half of a UTF-16 pair alone: no UTF-8 can encode it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const ESCAPES: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' }

/** A control character as `\n`, `\t`, `\r` or the `\xHH` of its UTF-8 bytes (what bash's $'…' reads back). */
function escapeControl(c: string): string {
  return ESCAPES[c] ?? [...Buffer.from(c, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')
}

/** A value as an error message shows it: in quotes, its control characters escaped. */
export function visible(value: string): string {
  return JSON.stringify(value)
}

/**
 * Refuses what no job script can carry: NUL, and text that is not UTF-8. Node reads a name whose
 * bytes are not UTF-8 with U+FFFD in their place (and a lone surrogate cannot be written), so a
 * script naming it would name another file.
 */
export function checkScriptValue(value: string, what: string): string {
  if (value.includes('\0')) throw new ApiError('invalid-argument', `${what} ${visible(value)} holds a NUL character, which no job script can carry`)
  if (LONE_SURROGATE.test(value) || value.includes('\uFFFD'))
    throw new ApiError('invalid-argument', `${what} ${visible(value)} is not valid UTF-8 (undecodable bytes show as \uFFFD): a job script would name another file; rename it`)
  return value
}

/**
 * A word for bash: as is when nothing in it is special, in single quotes otherwise, and as $'…'
 * with its control characters escaped when it holds any, so that every word stays on its line.
 */
export function shellWord(word: string, what = 'a value'): string {
  checkScriptValue(word, what)
  if (PLAIN.test(word)) return word
  if (!CONTROL.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`
  return `$'${word.replace(/[\\']/g, '\\$&').replace(CONTROLS, escapeControl)}'`
}

export const shellWords = (words: readonly string[], what?: string) => words.map((w) => shellWord(w, what)).join(' ')

/** A command line for people (a script's header, a job record): each word as bash reads it, or in JSON's quotes where no script could carry it. */
export function commandLine(words: readonly string[]): string {
  return words.map((w) => {
    try {
      return shellWord(w)
    } catch {
      return visible(w)
    }
  }).join(' ')
}

/**
 * One argument of a `#SBATCH` line. sbatch reads the line up to its end or an unquoted `#`, and
 * takes "…" as one argument with `\"` and `\\` inside: a value with anything special is written so.
 * A line can hold no newline, so a value with a control character is refused.
 */
export function sbatchWord(value: string, what: string): string {
  checkScriptValue(value, what)
  if (CONTROL.test(value)) throw new ApiError('invalid-argument', `${what} ${visible(value)} holds a line break or another control character, which a #SBATCH line cannot carry`)
  return PLAIN.test(value) ? value : `"${value.replace(/[\\"]/g, '\\$&')}"`
}

/**
 * A path as a Slurm file name pattern (`--output`, `--error`): `%` written `%%`, since Slurm expands
 * `%j`, `%a`, …. A backslash makes Slurm expand nothing and drop the backslashes, so a path with one
 * cannot be named there.
 */
export function slurmPathPattern(path: string, what: string): string {
  if (path.includes('\\')) throw new ApiError('invalid-argument', `${what} ${visible(path)} holds a backslash, which Slurm reads as an escape in its log file names (--output); choose a folder without one`)
  return path.replace(/%/g, '%%')
}

/**
 * One option of a `#SBATCH` line given whole, e.g. `--mem=8G` (`--sbatch-arg`): an sbatch option,
 * starting with `-`, as one argument.
 */
export function sbatchOption(arg: string, what = '--sbatch-arg'): string {
  if (!arg.startsWith('-')) throw new ApiError('invalid-argument', `${what} must be an sbatch option starting with -, e.g. --mem=8G; got ${visible(arg)}`)
  return sbatchWord(arg, what)
}

/** Text for a `#` comment line: no line break may end it, so control characters are shown escaped. */
export function commentText(text: string): string {
  return text.replace(CONTROLS, escapeControl)
}
