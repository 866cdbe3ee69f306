// ECMA-262's non-unicode Canonicalize of one UTF-16 unit, the equality of a RegExp with the `i` flag and no `u` flag: the
// one definition both the literal matcher (sessions/search-matcher.ts) and the catalog's folding (catalog/tokens.ts) use,
// so that what the index folds together is what the matcher finds equal.

const cache = new Map<number, number>()

/**
 * The canonical unit of a non-ASCII unit: its toUpperCase, kept only when that is one unit and not an ASCII one (the
 * Kelvin sign and the long s stay themselves), else the unit itself.
 */
export function canonicalNonAscii(c: number): number {
  let v = cache.get(c)
  if (v === undefined) {
    const u = String.fromCharCode(c).toUpperCase()
    v = u.length !== 1 || u.charCodeAt(0) < 0x80 ? c : u.charCodeAt(0)
    cache.set(c, v)
  }
  return v
}
