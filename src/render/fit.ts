// Tables for a terminal: columns sized to their content and, when a row would be wider than the terminal, the
// columns that may give way are cut (with `…`) or left out in a fixed order, so no line wraps and every column stays
// aligned. Piped, the tables OpenClaw also prints (sessions list, status) keep its fixed padEnd layout
// (render/columns.ts); clawkit's own (sessions usage) come here with no width limit, every column in full.
import {stripAnsi} from '../text/ansi.js'
import {paint, type Style} from './color.js'
import {printable} from './safe.js'

export interface FitColumn {
  header: string
  /**
   * How this column may give way when the table is too wide: steps of all columns are taken in rank order (lowest
   * first), each cutting its column down to its floor (default: the header's width), or with `drop`, leaving the column
   * out. A column can have several steps (a key gives way to a readable width early and to its unique prefix last).
   * No steps: never cut. Width a later step freed beyond what was needed goes back to the columns cut before it.
   */
  shrink?: {rank: number; floor?: number; drop?: boolean}[]
  /** How a cell is cut to the column's width (default: a prefix and `…`). */
  cut?: (text: string, width: number) => string
  /** Cut every cell of the column as soon as its widest one is cut (cells that must read alike, such as flags). */
  cutEvery?: boolean
  /** Numbers line up on the right. */
  align?: 'right'
}

export interface FitCell {
  text: string
  style?: Style
}

/**
 * The width the table must fit: the terminal's columns when stdout is a TTY (else $COLUMNS, else 80), undefined when
 * stdout is not a terminal (piped output keeps OpenClaw's layout).
 */
export function terminalWidth(stream: NodeJS.WriteStream = process.stdout): number | undefined {
  if (!stream.isTTY) return undefined
  if ((stream.columns ?? 0) > 0) return stream.columns
  const env = Number.parseInt(process.env.COLUMNS ?? '', 10)
  return env > 0 ? env : 80
}

// East Asian wide and fullwidth ranges and the common emoji blocks: two terminal cells each.
const WIDE_RE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/u
const ZERO_RE = /\p{Mn}/u

function charWidth(ch: string): number {
  if (ZERO_RE.test(ch)) return 0
  return WIDE_RE.test(ch) ? 2 : 1
}

/** Terminal cells a string takes (text already made printable, so no control characters). */
export function displayWidth(s: string): number {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0020-\u007E]*$/.test(s)) return s.length
  let w = 0
  for (const ch of s) w += charWidth(ch)
  return w
}

/** Cut to at most `width` cells, ending in `…` when anything was cut; the kept part is always a prefix. */
export function cutToWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s
  if (width <= 0) return ''
  let out = ''
  let w = 0
  for (const ch of s) {
    const cw = charWidth(ch)
    if (w + cw > width - 1) break
    out += ch
    w += cw
  }
  return `${out}…`
}

function padTo(s: string, width: number): string {
  const w = displayWidth(s)
  return w >= width ? s : s + ' '.repeat(width - w)
}

/**
 * Column widths: content widths, then given way by rank until the row fits `maxWidth` (Infinity: never cut). A column
 * left out has width 0.
 */
export function fitWidths(columns: FitColumn[], rows: string[][], maxWidth: number): number[] {
  const widths = columns.map((c, i) => Math.max(displayWidth(c.header), ...rows.map((r) => displayWidth(r[i] ?? ''))))
  const total = () => widths.reduce((a, b) => a + b, 0) + widths.filter((w) => w > 0).length - 1
  let excess = total() - maxWidth
  if (excess <= 0) return widths
  const order = columns.flatMap((c, i) => (c.shrink ?? []).map((step) => ({i, ...step}))).sort((a, b) => a.rank - b.rank)
  const given: {i: number; n: number}[] = []
  for (const {i, floor: stepFloor, drop} of order) {
    if (widths[i] === 0) continue
    if (drop) {
      excess -= widths[i] + 1
      widths[i] = 0
    } else {
      const floor = Math.min(widths[i], stepFloor ?? displayWidth(columns[i].header))
      const give = Math.min(excess, widths[i] - floor)
      widths[i] -= give
      excess -= give
      given.push({i, n: give})
    }
    if (excess <= 0) break
  }
  // A column left out may free more than was still needed: the cuts made before it get that back, the latest first.
  for (const g of given.reverse()) {
    if (excess >= 0) break
    if (widths[g.i] === 0) continue
    const back = Math.min(-excess, g.n)
    widths[g.i] += back
    excess += back
  }
  return widths
}

/**
 * A borderless table, one space between columns, each line right-trimmed. Cells are made printable, then cut to
 * their column; colour wraps only the text, never the padding. `hidden` gets the headers of the columns left out.
 */
export function renderFitted(columns: FitColumn[], rows: (string | FitCell)[][], opts: {width: number; color: boolean; headStyle?: Style; hidden?: string[]}): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'string' ? {text: printable(c)} : {text: printable(c.text), style: c.style})))
  const widths = fitWidths(columns, cells.map((r) => r.map((c) => c.text)), opts.width)
  const cutAll = columns.map((c, i) => Boolean(c.cutEvery) && cells.some((r) => displayWidth(r[i]?.text ?? '') > widths[i]))
  const shown = widths.flatMap((w, i) => (w > 0 ? [i] : []))
  opts.hidden?.push(...columns.filter((_, i) => widths[i] === 0).map((c) => c.header))
  const line = (r: FitCell[]) =>
    shown
      .map((i, at) => {
        const cell = r[i] ?? {text: ''}
        const text = displayWidth(cell.text) <= widths[i] && !cutAll[i] ? cell.text : (columns[i]?.cut ?? cutToWidth)(cell.text, widths[i])
        const pad = ' '.repeat(Math.max(0, widths[i] - displayWidth(text)))
        if (columns[i]?.align === 'right') return `${pad}${cell.style ? paint(opts.color, cell.style, text) : text}`
        const padded = at === shown.length - 1 ? text : text + pad
        return cell.style ? paint(opts.color, cell.style, text) + padded.slice(text.length) : padded
      })
      .join(' ')
      .trimEnd()
  const head = columns.map((c, i) => ({text: cutToWidth(c.header, Math.max(widths[i], 0)), style: opts.headStyle ?? ('bold' as Style)}))
  const headLine = shown
    .map((i, at) => {
      const {text, style} = head[i]
      const pad = ' '.repeat(Math.max(0, widths[i] - displayWidth(text)))
      if (columns[i].align === 'right') return `${pad}${paint(opts.color, style, text)}`
      return at === shown.length - 1 ? paint(opts.color, style, text) : paint(opts.color, style, text) + pad
    })
    .join(' ')
    .trimEnd()
  return [headLine, ...cells.map(line)].join('\n')
}

/** For each string, the shortest prefix no other string in the list starts with (the whole string when it is a prefix of another). */
function uniquePrefixLengths(keys: string[]): Map<string, number> {
  const sorted = [...new Set(keys)].sort()
  const lcp = (a: string, b: string) => {
    let n = 0
    while (n < a.length && n < b.length && a[n] === b[n]) n++
    return n
  }
  const out = new Map<string, number>()
  for (let i = 0; i < sorted.length; i++) {
    const k = sorted[i]
    const shared = Math.max(i > 0 ? lcp(sorted[i - 1], k) : 0, i < sorted.length - 1 ? lcp(k, sorted[i + 1]) : 0)
    out.set(k, Math.min(k.length, shared + 1))
  }
  return out
}

const reverse = (s: string) => [...s].reverse().join('')

/** A key cut to `head…tail` keeps at least this much head, so it still reads as the key it is. */
const MIN_HEAD = 12
/** The tail a cut keeps when the head alone is not unique (OpenClaw's own cut keeps the last 6). */
const MIN_TAIL = 6

/** `agent:<id>:`: a cut that keeps it makes `sessions history` search that agent's store only. */
const AGENT_HEAD_RE = /^agent:[^:]+:/i

/**
 * How session keys are cut in a table so that what is shown still names one session: `sessions history` takes
 * `head…tail` (or a bare prefix) and finds the one key that starts with head and ends with tail. A key is cut to a pure
 * prefix when its unique prefix fits, else to a head and the tail that no other key ends with.
 *
 * Uniqueness is judged against `domain`: every key of the stores that were read, not only the rows shown (--limit,
 * --active and status's 10 recent rows hide keys that history still searches), compared as history compares them
 * (case-folded). A cut keeps at least the key's `agent:<id>:` so history looks in that agent's store and no other.
 * `floorOf(key)` is the narrowest cell a key can be cut to this way; `floor` is the largest of them over `keys`.
 */
export function keyCutter(keys: string[], domain: Iterable<string> = keys): {floor: number; floorOf: (key: string) => number; cut: (key: string, width: number) => string} {
  const fold = (k: string) => k.toLowerCase()
  // Built on first use: piped status asks only about keys over 32 characters, usually none.
  let maps: {prefix: Map<string, number>; suffixRev: Map<string, number>} | undefined
  const lengths = () => {
    if (maps) return maps
    const all = new Set<string>()
    for (const k of keys) all.add(fold(k))
    for (const k of domain) all.add(fold(k))
    const folded = [...all]
    return (maps = {prefix: uniquePrefixLengths(folded), suffixRev: uniquePrefixLengths(folded.map(reverse))})
  }
  const agentHead = (k: string) => AGENT_HEAD_RE.exec(k)?.[0].length ?? 0
  const prefixOf = (k: string, n: number) => Math.min(n, Math.max(lengths().prefix.get(fold(k)) ?? n, agentHead(k) + 1))
  const suffixOf = (k: string, n: number) => Math.min(n, Math.max(lengths().suffixRev.get(reverse(fold(k))) ?? n, MIN_TAIL))
  const headOf = (k: string, p: number) => Math.max(Math.min(p, MIN_HEAD), agentHead(k))
  const floorOf = (k: string) => {
    const n = [...k].length
    const p = prefixOf(k, n)
    return Math.max(3, Math.min(n, p < n ? p + 1 : n, headOf(k, p) + 1 + suffixOf(k, n)))
  }
  const cut = (key: string, width: number) => {
    const chars = [...key]
    if (chars.length <= width) return key
    const p = prefixOf(key, chars.length)
    if (p <= width - 1) return `${chars.slice(0, width - 1).join('')}…`
    const t = Math.min(suffixOf(key, chars.length), Math.max(0, width - 2))
    return `${chars.slice(0, Math.max(1, width - 1 - t)).join('')}…${chars.slice(chars.length - t).join('')}`
  }
  return {
    get floor() {
      let floor = 3
      for (const k of keys) floor = Math.max(floor, floorOf(k))
      return floor
    },
    floorOf,
    cut,
  }
}

/**
 * The line under a fitted table that had to leave columns out, so that nobody takes them for absent data; wrapped to
 * the width. Nothing when every column is shown.
 */
export function hiddenNote(hidden: string[], width: number): string[] {
  if (hidden.length === 0) return []
  const text = `Not shown: ${hidden.join(', ')} (--wide shows them).`
  return Number.isFinite(width) ? wrapHanging('', '', text, width) : [text]
}

/** Greedy word wrap to `width` cells with a hanging indent; a word longer than a line is left whole. */
export function wrapHanging(first: string, rest: string, text: string, width: number): string[] {
  const words = text.split(' ')
  const lines: string[] = []
  let cur = first
  let empty = true
  for (const word of words) {
    const candidate = empty ? `${cur}${word}` : `${cur} ${word}`
    if (!empty && displayWidth(stripAnsi(candidate)) > width) {
      lines.push(cur)
      cur = `${rest}${word}`
    } else cur = candidate
    empty = false
  }
  lines.push(cur)
  return lines
}
