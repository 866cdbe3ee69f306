// Writes a --json document as `JSON.stringify(doc, null, 2)` spells it, in pieces: a large list is never one string.
/*
 * Why: `sessions list --json` on 10 000 sessions is a 7 MB document. Stringified whole, V8 grows one 7 MB string (in
 * pretty-printing mode, ~90 ms in a fresh process, most of it first-touched memory), and the write copies it into a
 * 7 MB buffer once more. The same text in pieces of a few dozen rows is ~3x faster to produce, and no piece outlives
 * its write. Only the arrays that are direct members of a plain top-level object are split (every list-shaped document
 * clawkit prints has its rows there); everything else is stringified as it is.
 */

/** Rows per piece: pieces of ~64 rows (~45 KB) measured fastest; 256 and more were slower than the whole document. */
const BATCH = 64

/** A plain object (no prototype but Object's or none, no toJSON): JSON.stringify spells it key by key. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return (proto === Object.prototype || proto === null) && typeof (v as {toJSON?: unknown}).toJSON !== 'function'
}

/**
 * Calls `write` with consecutive pieces whose concatenation is `JSON.stringify(doc, null, 2) ?? 'null'`. A split array's
 * elements are stringified in batches as `[[...batch]]`, whose inner lines are indented as the document indents them
 * (four spaces at depth 2). The one difference a caller could see: an element's toJSON(key) would be given its index in
 * the batch, not in the array; no document clawkit prints has such an element.
 */
export function writeJsonDocument(doc: unknown, write: (text: string) => void): void {
  if (!isPlainObject(doc)) {
    write(JSON.stringify(doc, null, 2) ?? 'null')
    return
  }
  // Each large array is replaced by a placeholder string no value can hold (a NUL and a random tag), found again in the
  // short document's text; if one is not found exactly once, the document is written whole.
  const tag = `\u0000clawkit-rows-${Math.random().toString(36).slice(2)}-`
  const shallow: Record<string, unknown> = {...doc}
  const arrays: unknown[][] = []
  for (const key of Object.keys(shallow)) {
    const v = shallow[key]
    if (Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype && typeof (v as {toJSON?: unknown}).toJSON !== 'function' && v.length > BATCH) {
      shallow[key] = `${tag}${arrays.length}`
      arrays.push(v)
    }
  }
  if (arrays.length === 0) {
    write(JSON.stringify(doc, null, 2))
    return
  }
  const text = JSON.stringify(shallow, null, 2)
  const at = arrays.map((_, i) => {
    const quoted = JSON.stringify(`${tag}${i}`)
    const first = text.indexOf(quoted)
    return first !== -1 && text.indexOf(quoted, first + 1) === -1 ? {first, length: quoted.length} : undefined
  })
  if (at.some((a, i) => a === undefined || (i > 0 && a.first < at[i - 1]!.first))) {
    write(JSON.stringify(doc, null, 2))
    return
  }
  let from = 0
  for (const [i, rows] of arrays.entries()) {
    const {first, length} = at[i]!
    write(`${text.slice(from, first)}[\n`)
    for (let start = 0; start < rows.length; start += BATCH) {
      // "[\n  [\n" + the elements at depth 2 + "\n  ]\n]": the six characters at either end are the two wrappers.
      const piece = JSON.stringify([rows.slice(start, start + BATCH)], null, 2)
      write(start === 0 ? piece.slice(6, -6) : `,\n${piece.slice(6, -6)}`)
    }
    write('\n  ]')
    from = first + length
  }
  write(text.slice(from))
}
