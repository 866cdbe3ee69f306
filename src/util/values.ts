// Reading loosely typed JSON values (index entries, usage blocks, config): one meaning per shape, named for what it
// accepts, so that two readers of the same field cannot quietly disagree on what counts as missing.

/** The value when it is a string of at least one character, else undefined. '' counts as missing; ' ' does not. */
export function nonEmptyString(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined
}

/** The value when it is a finite number, else undefined (NaN and the infinities count as missing; no coercion). */
export function finiteNumber(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/** The value when it is true or false, else undefined (no truthiness: 1 and 'true' count as missing). */
export function strictBoolean(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined
}

/**
 * A model price from openclaw.json (dollars per million tokens): a finite number of at least 0, else 0. A negative or
 * non-finite price counts as none, for the agent's recorded cost and for usage's estimates alike.
 */
export function modelPrice(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0
}
