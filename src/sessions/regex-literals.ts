// The literal runs every match of a `--regex` pattern must contain, so that `sessions search --regex` can skip lines by
// their raw bytes as a literal search does, instead of parsing every line of every transcript.

/**
 * The literal runs that every match of `source` (an RE2 regular expression, as re2js compiles it) contains, or
 * undefined when there is none this reading can prove (a top-level `|`, nothing but classes and groups, or syntax that
 * changes how the rest reads: a bare flag group such as `(?i)`, or `\Q...\E` quoting).
 *
 * It reads only the top-level concatenation, and stays conservative: a group, class, assertion, `.` or escape class
 * ends a run and adds nothing; a character under `?`, `*` or `{` (which may repeat it zero times) is dropped from its
 * run; one under `+` is kept and ends the run. A character escaped with a backslash is itself (RE2 allows it before any
 * punctuation); letter and digit escapes (`\d`, `\n`, `\pL`, `\x{41}`, `\012`...) end a run and their bodies are
 * skipped. What is returned is a necessary condition, never a sufficient one: the caller still runs the regular
 * expression on every line it keeps.
 */
export function requiredLiterals(source: string): string[] | undefined {
  const runs: string[] = []
  let run = ''
  const end = () => {
    if (run) runs.push(run)
    run = ''
  }
  const chars = [...source]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]
    if (c === '|') return undefined
    if (c === '\\') {
      const next = chars[i + 1]
      if (next === undefined) return undefined
      // \Q...\E quotes what follows: its characters are literals, quantifiers after \E apply to the last one. Not read.
      if (next === 'Q') return undefined
      i++
      if (/[A-Za-z0-9]/.test(next)) {
        end()
        // \p{...}, \pL, \x{...}, \xHH, \0oo, \u{...}, \uHHHH, \k<...> and \cX carry a body; skip it so that its
        // characters are not read as literals (\x41 is "A", not "41"; \012 is a newline, not "12").
        if ((next === 'p' || next === 'P' || next === 'u' || next === 'x') && chars[i + 1] === '{') i = closing(chars, i + 1, '}')
        else if (next === 'p' || next === 'P') i += 1
        else if (next === 'k' && chars[i + 1] === '<') i = closing(chars, i + 1, '>')
        else if (next === 'u') i += 4
        else if (next === 'x') i += 2
        else if (next === 'c') i += 1
        else if (next === '0') for (let k = 0; k < 2 && /[0-7]/.test(chars[i + 1] ?? ''); k++) i++
        // A backreference takes every digit after it under the u flag (\10 is group ten, never group one and "0"; a
        // group that does not exist is a syntax error there, so no digit of it can be a literal).
        else if (next >= '1' && next <= '9') while (/[0-9]/.test(chars[i + 1] ?? '')) i++
        continue
      }
      i = literal(next, i)
      continue
    }
    if (c === '[') {
      end()
      i = classEnd(chars, i)
      continue
    }
    if (c === '(') {
      // A bare flag group ((?i), (?-s)...) changes how everything after it matches (case): nothing is claimed.
      if (/^\(\?[A-Za-z-]*\)/.test(chars.slice(i, i + 32).join(''))) return undefined
      end()
      i = groupEnd(chars, i)
      if (i < 0) return undefined
      continue
    }
    if (c === '.' || c === '^' || c === '$') {
      end()
      continue
    }
    if (c === '*' || c === '?' || c === '+' || c === '{') {
      // A quantifier after something that already ended the run (a group, class, another quantifier) changes nothing.
      if (c === '{') i = closing(chars, i, '}')
      end()
      continue
    }
    i = literal(c, i)
  }
  end()
  return runs.length > 0 ? runs : undefined

  /** A literal character at i: kept unless the quantifier after it may repeat it zero times. Returns the last index read. */
  function literal(ch: string, i: number): number {
    const q = chars[i + 1]
    if (q === '*' || q === '?' || q === '{') {
      end()
      return i
    }
    run += ch
    if (q === '+') end()
    return i
  }
}

/** The index of the first unescaped `close` after `from`, or the last index when there is none. */
function closing(chars: string[], from: number, close: string): number {
  for (let i = from + 1; i < chars.length; i++) {
    if (chars[i] === '\\') i++
    else if (chars[i] === close) return i
  }
  return chars.length - 1
}

/**
 * The index of the `]` that ends the class opened at `from`, as RE2 reads a class: a `]` right after `[` or `[^` is a
 * member, `[:alpha:]` is a named class inside it, a backslash escapes the next character. The last index if none.
 */
function classEnd(chars: string[], from: number): number {
  let i = from + 1
  if (chars[i] === '^') i++
  if (chars[i] === ']') i++
  for (; i < chars.length; i++) {
    if (chars[i] === '\\') i++
    else if (chars[i] === '[' && chars[i + 1] === ':') {
      const close = chars.findIndex((ch, k) => k > i + 1 && ch === ':' && chars[k + 1] === ']')
      if (close > 0) i = close + 1
    } else if (chars[i] === ']') return i
  }
  return chars.length - 1
}

/** The index of the `)` that closes the group opened at `from`, through nested groups, classes and escapes; -1 if none. */
function groupEnd(chars: string[], from: number): number {
  let depth = 0
  for (let i = from; i < chars.length; i++) {
    const c = chars[i]
    if (c === '\\') i++
    else if (c === '[') i = classEnd(chars, i)
    else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return i
  }
  return -1
}
