// Reads a large sessions.json entry by entry, in chunks, for callers that keep only a little of each entry (a list
// row): they then hold neither the whole text nor every parsed entry at once. A small index, or anything but OpenClaw's
// own layout, is parsed whole.
import type {FileHandle} from 'node:fs/promises'

import {FileTooLargeError, openRegular, type ReadWholeOptions} from '../../os/safe-open.js'
import {startsWithBom, UTF8_BOM} from '../../text/bom.js'
import type {SessionEntry} from '../types.js'

/** Bytes read at a time; an entry larger than this is simply carried over into the next read. */
const CHUNK_BYTES = 1024 * 1024

const OPEN = Buffer.from('{\n  "')
const ENTRY_CLOSE = Buffer.from('\n  }')
const NEXT = Buffer.from(',\n  "')
const END = Buffer.from('\n}')

/** What a scan cost, for tests: bytes moved when the read buffer was compacted or grown. */
export interface ScanStats {
  copiedBytes: number
}

/** A value of the index that is an entry: an object (OpenClaw ignores anything else there). */
export function isEntryObject(v: unknown): v is SessionEntry {
  return Boolean(v) && typeof v === 'object' && !Array.isArray(v)
}

/** The file is not laid out as JSON.stringify(store, null, 2) writes it (or it is corrupt): parse it whole. */
class NotOpenClawLayout extends Error {}

/**
 * Read buffer over an open file: `buf[at..]` is what has been read and not yet consumed. Offsets into `buf` stay valid
 * across reads except when it is compacted, so callers keep offsets relative to `at`.
 */
class ChunkReader {
  buf = Buffer.alloc(0)
  at = 0
  eof = false
  private pos = 0
  /** Backing memory; `buf` is `store[start, start + buf.length)`. */
  private store = Buffer.alloc(0)
  private start = 0

  constructor(
    private readonly fh: FileHandle,
    private readonly chunkBytes: number,
    private readonly stats?: ScanStats,
  ) {}

  /** Reads the next chunk onto the unconsumed rest; false at end of file. */
  async more(): Promise<boolean> {
    if (this.eof) return false
    let end = this.start + this.buf.length
    if (this.store.length - end < this.chunkBytes) {
      // Out of room: move the unconsumed rest to the front, in memory twice its size plus a chunk when it has grown.
      // Growing geometrically keeps a long entry (or a long wait for the next `\n  }`) linear in the bytes read.
      const rest = this.buf.length - this.at
      const target = this.store.length >= 2 * (rest + this.chunkBytes) ? this.store : Buffer.allocUnsafe(2 * (rest + this.chunkBytes))
      this.store.copy(target, 0, this.start + this.at, end)
      if (this.stats) this.stats.copiedBytes += rest
      this.store = target
      this.start = 0
      this.at = 0
      end = rest
      this.buf = target.subarray(0, rest)
    }
    const {bytesRead} = await this.fh.read(this.store, end, this.chunkBytes, this.pos)
    if (bytesRead === 0) {
      this.eof = true
      return false
    }
    this.pos += bytesRead
    this.buf = this.store.subarray(this.start, end + bytesRead)
    return true
  }

  /** Makes sure `n` unconsumed bytes are buffered; false if the file ends first. */
  async need(n: number): Promise<boolean> {
    while (this.buf.length - this.at < n) if (!(await this.more())) return false
    return true
  }

  /** Whether the unconsumed bytes start with `bytes` (reading as far as needed). */
  async startsWith(bytes: Buffer): Promise<boolean> {
    return (await this.need(bytes.length)) && this.buf.compare(bytes, 0, bytes.length, this.at, this.at + bytes.length) === 0
  }

  /**
   * Offset in `buf` of the next `bytes` from `at` on, dropping what it searches past, so that looking for something
   * far away holds about a chunk, not the file; -1 if the file ends first.
   */
  async seek(bytes: Buffer): Promise<number> {
    for (;;) {
      const hit = this.buf.indexOf(bytes, this.at)
      if (hit >= 0) return hit
      this.at = Math.max(this.at, this.buf.length - bytes.length + 1)
      if (!(await this.more())) return -1
    }
  }

  /** Offset in `buf` of the next `bytes` at or after `buf[from]`, reading on until found; -1 if the file ends first. */
  async find(bytes: Buffer, from: number): Promise<number> {
    let searchFrom = from - this.at
    for (;;) {
      const hit = this.buf.indexOf(bytes, this.at + searchFrom)
      if (hit >= 0) return hit
      // Keep searching where a match could still start once more bytes arrive.
      searchFrom = Math.max(searchFrom, this.buf.length - this.at - bytes.length + 1)
      if (!(await this.more())) return -1
    }
  }
}

/**
 * Whether the file starts and ends as OpenClaw writes it: `{\n  "` and `\n}` (then only whitespace). A cheap first
 * check that turns a torn file (a crash mid-write, openclaw#77783) over to the whole parse, which reports it.
 */
export async function hasLayoutEnds(fh: FileHandle, size: number): Promise<boolean> {
  return (await layoutStart(fh, size)) >= 0
}

/**
 * Where OpenClaw's layout starts: 0, or 3 after a UTF-8 byte order mark (the whole parse reads past one too, so the
 * entry-by-entry reader must give the same entries); -1 when the file does not start and end as OpenClaw's do.
 */
async function layoutStart(fh: FileHandle, size: number): Promise<number> {
  const head = Buffer.alloc(UTF8_BOM.length + OPEN.length)
  const got = (await fh.read(head, 0, head.length, 0)).bytesRead
  const start = startsWithBom(head.subarray(0, got)) ? UTF8_BOM.length : 0
  if (got < start + OPEN.length || !head.subarray(start, start + OPEN.length).equals(OPEN)) return -1
  const tail = Buffer.alloc(Math.min(size, 256))
  const {bytesRead} = await fh.read(tail, 0, tail.length, size - tail.length)
  return /\n\}[ \t\n\r]*$/.test(tail.toString('latin1', 0, bytesRead)) ? start : -1
}

/** End (exclusive) of the JSON string whose opening quote is at `buf[start]`, or -1 if it does not end on this line. */
function stringEnd(buf: Buffer, start: number): number {
  for (let i = start + 1; i < buf.length; i++) {
    const c = buf[i]
    if (c === 0x5c) i++
    else if (c === 0x22) return i + 1
    else if (c === 0x0a) return -1
  }
  return -1
}

function parseSlice(buf: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(buf.toString('utf8', start, end))
  } catch {
    throw new NotOpenClawLayout()
  }
}

/**
 * Visits the entries of OpenClaw's layout (`{\n  "<key>": {…\n  },\n  "<key>": …\n}`) in file order. Each key and
 * each value is checked by JSON.parse and the text between them must be exactly that layout, so whatever this accepts
 * is valid JSON with the same entries; a value's slice ends at the first `\n  }` after it, and a slice that ends early
 * (a nested brace at that indent) fails to parse and sends the whole file to JSON.parse instead.
 */
async function visitLayout(fh: FileHandle, size: number, visit: (key: string, entry: SessionEntry) => void | Promise<void>, chunkBytes: number, stats?: ScanStats): Promise<void> {
  const bomLength = await layoutStart(fh, size)
  if (bomLength < 0) throw new NotOpenClawLayout()
  const r = new ChunkReader(fh, chunkBytes, stats)
  if (!(await r.need(bomLength))) throw new NotOpenClawLayout()
  r.at += bomLength
  if (!(await r.startsWith(OPEN))) throw new NotOpenClawLayout()
  r.at += OPEN.length - 1 // at the key's opening quote
  for (;;) {
    // The key: a JSON string on this line, then `: {`. Offsets into r.buf move when it is refilled, so lengths are
    // kept relative to r.at across reads.
    let keyLen = -1
    for (;;) {
      const end = stringEnd(r.buf, r.at)
      if (end >= 0) {
        keyLen = end - r.at
        break
      }
      // No closing quote: either a raw newline ends the line first (not a key) or the chunk ended mid-key.
      if (r.buf.indexOf(0x0a, r.at + 1) >= 0 || !(await r.more())) throw new NotOpenClawLayout()
    }
    // `: {` and a newline: JSON.stringify puts a non-empty object's members on lines of their own. An entry written on
    // one line (another formatter) is given up on here, before a search for its `\n  }` would read the whole file.
    if (!(await r.need(keyLen + 4))) throw new NotOpenClawLayout()
    const keyEnd = r.at + keyLen
    if (r.buf[keyEnd] !== 0x3a || r.buf[keyEnd + 1] !== 0x20 || r.buf[keyEnd + 2] !== 0x7b || r.buf[keyEnd + 3] !== 0x0a) throw new NotOpenClawLayout()
    const key = parseSlice(r.buf, r.at, keyEnd) as string
    const valueStart = keyEnd + 2
    const valueOffset = valueStart - r.at
    const close = await r.find(ENTRY_CLOSE, valueStart)
    if (close < 0) throw new NotOpenClawLayout()
    const start = r.at + valueOffset
    const entry = parseSlice(r.buf, start, close + ENTRY_CLOSE.length)
    if (!isEntryObject(entry)) throw new NotOpenClawLayout()
    // Awaited only when the visitor is asynchronous (sync's upload): the read waits for it, so nothing piles up.
    const pending = visit(key, entry)
    if (pending) await pending
    r.at = close + ENTRY_CLOSE.length
    if (await r.startsWith(NEXT)) {
      r.at += NEXT.length - 1
      continue
    }
    if (!(await r.startsWith(END))) throw new NotOpenClawLayout()
    r.at += END.length
    // Only JSON whitespace may follow, as JSON.parse allows.
    do {
      for (let i = r.at; i < r.buf.length; i++) {
        const c = r.buf[i]
        if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) throw new NotOpenClawLayout()
      }
      r.at = r.buf.length
    } while (await r.more())
    return
  }
}

/**
 * One entry of a large sessions.json without parsing or holding the rest (a real OpenClaw entry is ~16 KB, so 10 000
 * sessions make a ~170 MB index): in a file laid out as OpenClaw writes it, top-level keys stand at exactly two spaces
 * of indent and a raw newline cannot occur inside a JSON string, so `\n  "<key>": {\n` can only begin a top-level
 * entry, which ends at the next `\n  }`. The whole file is searched, in chunks, so that a key present twice is
 * noticed. Returns undefined whenever that shortcut does not apply (the file does not start and end as OpenClaw's do,
 * the key is absent or present twice, the entry does not parse); callers then parse the whole file.
 *
 * What is not checked: the rest of the file. A store damaged in the middle, or a hand-edited one whose later
 * duplicate of the key is spelled with an escape, can still give this entry where a whole parse would fail or differ;
 * `sessions list` and `doctor` read every entry and report such damage.
 */
export async function readStoreEntry(fh: FileHandle, size: number, key: string, chunkBytes = CHUNK_BYTES, stats?: ScanStats): Promise<SessionEntry | undefined> {
  if (!(await hasLayoutEnds(fh, size))) return undefined
  const needle = Buffer.from(`\n  ${JSON.stringify(key)}: {\n`)
  const r = new ChunkReader(fh, chunkBytes, stats)
  let entry: SessionEntry | undefined
  for (let at = await r.seek(needle); at >= 0; at = await r.seek(needle)) {
    if (entry) return undefined
    const valueOffset = at + needle.length - 2 - r.at
    const close = await r.find(ENTRY_CLOSE, r.at + valueOffset)
    if (close < 0) return undefined
    let value: unknown
    try {
      value = parseSlice(r.buf, r.at + valueOffset, close + ENTRY_CLOSE.length)
    } catch {
      return undefined
    }
    if (!isEntryObject(value)) return undefined
    entry = value
    r.at = close + ENTRY_CLOSE.length
  }
  return entry
}

/**
 * Below this size the index is parsed whole: one JSON.parse of a ~10 MB index is faster than ten thousand small ones
 * (measured 63 ms slower entry by entry on 10 000 small entries). Above it, holding the text and every parsed entry
 * at once is what costs: 10 000 real OpenClaw entries (~16 KB each, 170 MB) took 1.2 s and 551 MiB whole, 0.87 s and
 * much less memory entry by entry (BENCHMARKS.md).
 */
export const SCAN_MIN_BYTES = 32 * 1024 * 1024

/** Array indices sort first, in numeric order, among an object's keys (and so in JSON.parse's result). */
const ARRAY_INDEX_RE = /^(?:0|[1-9]\d{0,9})$/
const isArrayIndex = (k: string) => ARRAY_INDEX_RE.test(k) && Number(k) < 4_294_967_295

/**
 * `project(key, value)` for every entry of the index, in the order and with the values a whole JSON.parse would give
 * (a key present twice keeps its first position and its last value); entries it maps to undefined are left out. A
 * large index in OpenClaw's layout is read entry by entry, without holding every entry at once (only object entries
 * can take that path). `parseWhole` is called instead for a small index, or one that is not in that layout, is
 * corrupt, or holds a non-object entry; it must return the whole parse (or throw its error). `project` must be pure: it
 * may also run for a value a later duplicate replaces, and runs again for every entry when a late check falls back.
 * Returns undefined when the file does not exist.
 */
export async function projectEntries<T>(
  file: string,
  project: (key: string, value: unknown) => T | undefined,
  parseWhole: (text: string) => Record<string, unknown>,
  opts: {chunkBytes?: number; minBytes?: number; stats?: ScanStats; file?: ReadWholeOptions} = {},
): Promise<Map<string, T> | undefined> {
  const got = await scanOrRead(file, opts, async (fh, size) => {
    // A Map keeps a repeated key at its first position with its last value, as JSON.parse does; values left out are
    // dropped at the end, so that a left-out duplicate still replaces the earlier value.
    const rows = new Map<string, T | undefined>()
    let arrayIndexKeys = false
    await visitLayout(
      fh,
      size,
      (key, entry) => {
        if (!arrayIndexKeys && isArrayIndex(key)) arrayIndexKeys = true
        rows.set(key, project(key, entry))
      },
      opts.chunkBytes ?? CHUNK_BYTES,
      opts.stats,
    )
    const ordered = arrayIndexKeys ? [...[...rows.keys()].filter(isArrayIndex).sort((a, b) => Number(a) - Number(b)), ...[...rows.keys()].filter((k) => !isArrayIndex(k))] : rows.keys()
    const out = new Map<string, T>()
    for (const k of ordered) {
      const row = rows.get(k)
      if (row !== undefined) out.set(k, row)
    }
    return out
  })
  if (got === undefined) return undefined
  if ('scanned' in got) return got.scanned
  const data = parseWhole(got.text)
  const rows = new Map<string, T>()
  for (const key of Object.keys(data)) {
    const entry = data[key]
    const row = project(key, entry)
    if (row !== undefined) rows.set(key, row)
  }
  return rows
}

/**
 * `visit(key, entry)` for every object entry of the index, awaiting each visit before reading on, so that a caller
 * that sends entries elsewhere holds one batch of its own and this reader's buffer, never the index (OpenClaw's
 * layout; anything else is parsed whole first, as projectEntries does). A file whose layout turns out irregular part
 * of the way through is visited again whole: a key may be visited more than once, and its last visit holds its value.
 * The file stays open while the visitor works (a reader never blocks OpenClaw's rename over it on POSIX).
 */
export async function visitEntries(
  file: string,
  visit: (key: string, entry: SessionEntry) => void | Promise<void>,
  parseWhole: (text: string) => Record<string, unknown>,
  opts: {chunkBytes?: number; minBytes?: number; file?: ReadWholeOptions} = {},
): Promise<void> {
  const got = await scanOrRead(file, opts, (fh, size) => visitLayout(fh, size, visit, opts.chunkBytes ?? CHUNK_BYTES))
  if (got === undefined || 'scanned' in got) return
  const data = parseWhole(got.text)
  for (const key of Object.keys(data)) {
    const entry = data[key]
    if (isEntryObject(entry)) await visit(key, entry)
  }
}

/**
 * The index file's reading, shared by both readers: `scan` over the open file when it is large enough for the layout
 * scan and the layout holds, else the whole text (a small file, or one whose layout turned out irregular). Undefined
 * when the file does not exist. The file is closed before the whole text is parsed.
 */
async function scanOrRead<T>(file: string, opts: {minBytes?: number; file?: ReadWholeOptions}, scan: (fh: FileHandle, size: number) => Promise<T>): Promise<{scanned: T} | {text: string} | undefined> {
  const fileOpts = opts.file ?? {what: 'Session store'}
  let fh: FileHandle
  let size: number
  try {
    ;({fh, stat: {size}} = await openRegular(file, fileOpts))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    if (size >= (opts.minBytes ?? SCAN_MIN_BYTES)) {
      try {
        return {scanned: await scan(fh, size)}
      } catch (error) {
        if (!(error instanceof NotOpenClawLayout)) throw error
      }
    }
    if (fileOpts.maxBytes !== undefined && size > fileOpts.maxBytes) throw new FileTooLargeError(file, size, fileOpts.maxBytes, fileOpts)
    return {text: (await fh.readFile()).toString('utf8')}
  } finally {
    // Closed before the parse: an open handle can make a writer's rename over the file fail on Windows.
    await fh.close()
  }
}
