// Where the catalog says to look: the spans of lines (per transcript) whose searched text holds every trigram of a query,
// adjacent ones joined into one read, and the unterminated end of a JSONL file, which is never indexed. The index only
// narrows: every span is read back from the store and judged by the same matcher and code path as a scan.
import type {LineSpan, TranscriptMark} from '../store/types.js'
import type {CatalogDb} from './db.js'

/** What candidateSpans needs of an agent's view (refresh.ts AgentView). */
interface Covered {
  ids: ReadonlyMap<string, number>
  marks: ReadonlyMap<number, TranscriptMark>
}

/** A span row as grepSpans takes it. */
export function spanOf(r: {line: number; lines: number; offset: number | null; bytes: number | null}): LineSpan {
  return r.offset === null ? {line: r.line, lines: r.lines} : {line: r.line, offset: r.offset, ...(r.bytes === null ? {} : {bytes: r.bytes})}
}

/**
 * The spans to read of each transcript of the view for a query: the index's candidates, adjacent ones joined into one
 * read, and the unterminated end of a JSONL file (never indexed: a line is indexed once it is complete), which is read
 * as a scan reads it. A transcript absent from the result has nothing that could match.
 */
export function candidateSpans(c: CatalogDb, view: Covered, query: string): Map<string, LineSpan[]> {
  const byId = new Map<number, string>()
  for (const [locator, id] of view.ids) byId.set(id, locator)
  const out = new Map<string, LineSpan[]>()
  const rows = c.stmt('SELECT s.transcript AS t, s.line, s.lines, s."offset" AS o, s.bytes FROM fts JOIN spans s ON s.id = fts.rowid WHERE fts MATCH ? ORDER BY s.transcript, s.line').all(query)
  for (const r of rows) {
    const locator = byId.get(Number(r.t))
    if (locator === undefined) continue
    const span = spanOf({line: Number(r.line), lines: Number(r.lines), offset: r.o === null ? null : Number(r.o), bytes: r.bytes === null ? null : Number(r.bytes)})
    const list = out.get(locator)
    if (!list) out.set(locator, [span])
    else {
      const last = list[list.length - 1]
      if (last.offset !== undefined && last.bytes !== undefined && span.offset === last.offset + last.bytes) last.bytes += span.bytes ?? 0
      else if (last.offset === undefined && last.lines !== undefined && span.offset === undefined && span.line === last.line + last.lines) last.lines += span.lines ?? 0
      else list.push(span)
    }
  }
  for (const [locator, id] of view.ids) {
    const tail = tailSpan(view.marks.get(id))
    if (!tail) continue
    const list = out.get(locator)
    if (list) list.push(tail)
    else out.set(locator, [tail])
  }
  return out
}

/** The unterminated last line of a JSONL transcript, as its mark says (read up to `bytes` of `size`), or none. */
export function tailSpan(mark: TranscriptMark | undefined): LineSpan | undefined {
  if (!mark || mark.bytes === undefined || mark.size === undefined || mark.size <= mark.bytes) return undefined
  return {line: mark.seq + 1, offset: mark.bytes}
}
