// Sentences built from parts: a message embedded in another must not get a second full stop ("Unterminated string..
// Every session"), and a count reads as English ("1 session", not "1 sessions").

/** The text without its closing full stop(s) and trailing space, ready for `${clause(msg)}. Next sentence`. */
export function clause(text: string): string {
  return text.replace(/[\s.]+$/, '')
}

/** A count and its noun, singular for exactly one: `plural(1, 'session')` is "1 session", `plural(2, 'session')` "2 sessions". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}
