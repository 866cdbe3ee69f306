// A deleted (or reset) session of the SQLite era: OpenClaw 2026.9.6 removes its node, windows and events and keeps the
// whole JSONL transcript as one row of `session_transcript_archives` (store-sqlite.md section 3.8; what a real delete
// writes is in test/fixtures/README.md "openclaw-2026.9.6-deleted"). Listed here as sessions of the row's key, and
// read back line by line, so usage, lineage and history keep a deleted session's messages and cost.
//
// Published archive files (`agents/<id>/sessions/<archive_name>`) are not listed: 2026.9.6 publishes every row as a
// file byte-identical to its blob and keeps the row, so a file only duplicates a row (docs/sqlite-writes.md).
import {sha256} from '../../util/hash.js'
import {parseLine} from '../lines.js'
import type {BadLine, TranscriptEntry, TranscriptHeader} from '../transcript-types.js'
import type {KeySession, TailOptions, TranscriptLine, TranscriptReadResult, TranscriptRef} from '../types.js'
import type {SqlDatabase} from './driver.js'
import {zlib} from './support.js'

/** `<db path>#archive/<archive_name>`: archive names never contain `/` or `#` (OpenClaw checks they stay a basename). */
const MARK = '#archive/'
/** OpenClaw materializes at most 256 MiB of archives at once; a blob that decodes to more is refused, not read. */
const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024

const fatalUtf8 = new TextDecoder('utf-8', {fatal: true})

export interface ArchiveRow {
  sessionId: string
  key: string
  reason: string
  name: string
  createdAt: number
}

export function archiveLocator(dbPath: string, name: string): string {
  return `${dbPath}${MARK}${name}`
}

/** The archive name a locator of this database names, or undefined when it names a live session. */
export function archiveNameOf(dbPath: string, locator: string): string | undefined {
  const at = locator.lastIndexOf(MARK)
  return at >= 0 && locator.slice(0, at) === dbPath ? locator.slice(at + MARK.length) : undefined
}

/**
 * Archive rows whose session has no window any more (a window still holding the session's events is the session;
 * its archive copy would count it twice), oldest first, optionally of one key. A database without the table has none.
 */
export function listArchives(db: SqlDatabase, key?: string): ArchiveRow[] {
  if (!db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_archives'").get()) return []
  const sql = `SELECT a.session_id, a.session_key, a.reason, a.archive_name, a.created_at FROM session_transcript_archives a
    WHERE NOT EXISTS (SELECT 1 FROM session_windows w WHERE w.session_id = a.session_id)${key === undefined ? '' : ' AND a.session_key = ?'}
    ORDER BY a.created_at, a.session_id, a.archive_name`
  const rows = key === undefined ? db.prepare(sql).all() : db.prepare(sql).all(key)
  return rows.map((r) => ({sessionId: String(r.session_id), key: String(r.session_key), reason: String(r.reason), name: String(r.archive_name), createdAt: Number(r.created_at)}))
}

export function archiveSession(dbPath: string, a: ArchiveRow): KeySession {
  const reset = a.reason === 'reset'
  const transcript: TranscriptRef = {locator: archiveLocator(dbPath, a.name), location: 'sqlite-archive', exists: true}
  const endedAt = Number.isFinite(a.createdAt) && a.createdAt > 0 ? {endedAt: new Date(a.createdAt).toISOString()} : {}
  return {sessionId: a.sessionId, where: reset ? 'reset-archive' : 'deleted-archive', transcript, ended: reset ? 'reset' : 'deleted', ...endedAt, foundBy: 'archive'}
}

/**
 * A key's sessions in time order: its windows (the current one last, as `windows` gives them, with each window's start)
 * and its archives by their time. An archive is the end of a session, so at equal times it comes before the window
 * that the same reset started.
 */
export function mergeArchives(windows: readonly KeySession[], starts: ReadonlyMap<string, number>, archives: readonly KeySession[], archiveTimes: readonly number[]): KeySession[] {
  if (archives.length === 0) return [...windows]
  const current = windows.at(-1)?.ended === 'current' ? windows.at(-1) : undefined
  const rest = current ? windows.slice(0, -1) : windows
  const timed = [...archives.map((s, i) => ({s, t: archiveTimes[i], o: 0})), ...rest.map((s) => ({s, t: starts.get(s.sessionId) ?? 0, o: 1}))]
  timed.sort((x, y) => x.t - y.t || x.o - y.o)
  return [...timed.map((x) => x.s), ...(current ? [current] : [])]
}

/**
 * The archive's JSONL text: its blob checked against archive_sha256 (OpenClaw's own reader refuses a mismatch too) and
 * decoded (zstd frames of 2026.9.6 carry no content size, so the limit is ours). Undefined when the row is gone.
 */
export function archiveText(db: SqlDatabase, name: string): {text: string} | {error: string} | undefined {
  const row = db.prepare('SELECT encoding, archive_blob, archive_sha256 FROM session_transcript_archives WHERE archive_name = ?').get(name)
  if (!row) return undefined
  const blob = row.archive_blob
  if (!(blob instanceof Uint8Array)) return {error: 'archive_blob is not a blob'}
  if (sha256().update(blob).digest('hex') !== row.archive_sha256) return {error: 'its bytes do not match archive_sha256'}
  let bytes: Uint8Array
  if (row.encoding === 'identity') bytes = blob
  else if (row.encoding === 'zstd') {
    try {
      // A SQLite-era store is opened only where sqliteSupported() holds, which requires zstd.
      bytes = zlib().zstdDecompressSync!(blob, {maxOutputLength: MAX_ARCHIVE_BYTES})
    } catch (error) {
      return {error: `its zstd blob does not decode (${(error as Error).message})`}
    }
  } else return {error: `unknown encoding ${JSON.stringify(row.encoding)}`}
  try {
    return {text: fatalUtf8.decode(bytes)}
  } catch {
    return {error: 'it is not valid UTF-8'}
  }
}

/** The archive row's archive_sha256 (a changed one is another blob), undefined when the row is gone. */
export function archiveSha(db: SqlDatabase, name: string): string | undefined {
  const v = db.prepare('SELECT archive_sha256 FROM session_transcript_archives WHERE archive_name = ?').get(name)?.archive_sha256
  return typeof v === 'string' ? v : undefined
}

/** An archive that cannot be read at all: one bad line naming it, as an undecodable event is. */
function unreadable(name: string, error: string): BadLine {
  return {line: 1, offset: 0, reason: 'undecodable', preview: `archive ${name}: ${error}`}
}

/** The archive's lines as a file's would be read (line numbers 1-based, blank lines skipped, a torn last line bad). */
export function archiveLines(name: string, decoded: {text: string} | {error: string}): TranscriptLine[] {
  if ('error' in decoded) return [{line: 1, raw: '', bad: unreadable(name, decoded.error)}]
  const text = decoded.text
  const out: TranscriptLine[] = []
  let start = 0
  let lineNo = 1
  let offset = 0
  while (start < text.length) {
    const nl = text.indexOf('\n', start)
    const end = nl < 0 ? text.length : nl
    const raw = text.slice(start, end)
    if (raw.trim() !== '') {
      const p = parseLine(raw, offset, lineNo, nl < 0)
      out.push({line: lineNo, raw: p.raw, ...(p.bad ? {bad: p.bad} : {value: p.value as Record<string, unknown>})})
    }
    offset += Buffer.byteLength(raw) + 1
    lineNo++
    start = end + 1
  }
  return out
}

/** `tail()` of an archive: the whole blob is decoded anyway (a zstd frame cannot be read from its end), then cut. */
export function tailArchive(locator: string, name: string, decoded: {text: string} | {error: string}, opts: TailOptions): TranscriptReadResult {
  const lines = archiveLines(name, decoded)
  const count = opts.count ?? (() => true)
  const badLines: BadLine[] = []
  let header: TranscriptHeader | undefined
  let badHeader = false
  const entries: {entry: TranscriptEntry; raw: string}[] = []
  for (const [i, l] of lines.entries()) {
    if (l.bad) {
      badLines.push(l.bad)
      continue
    }
    const v = l.value!
    if (i === 0 && v.type === 'session' && typeof v.id === 'string') {
      header = v as unknown as TranscriptHeader
      continue
    }
    if (i === 0) badHeader = true
    if (v.type === 'session') continue
    if (typeof v.type !== 'string') {
      badLines.push({line: l.line, offset: 0, reason: 'missing-id', preview: l.raw.slice(0, 200)})
      continue
    }
    entries.push({entry: v as unknown as TranscriptEntry, raw: l.raw})
  }
  // From the end: the last `limit` counted entries and everything after the first of them.
  let from = entries.length
  let counted = 0
  while (from > 0 && counted < opts.limit) {
    from--
    if (count(entries[from].entry)) counted++
  }
  const partial = opts.exactPartial ? entries.slice(0, from).some((e) => count(e.entry)) : from > 0
  const kept = entries.slice(from)
  const text = 'text' in decoded ? decoded.text : ''
  return {
    file: locator,
    header,
    version: typeof header?.version === 'number' ? header.version : 1,
    entries: kept.map((k) => k.entry),
    rawLines: kept.map((k) => k.raw),
    badLines,
    duplicateHeaders: 0,
    badHeader,
    missingFinalNewline: text.length > 0 && !text.endsWith('\n'),
    size: Buffer.byteLength(text),
    partial,
  }
}
