// Transcript files of the JSON layout: locate them from an index entry, read them whole or from the end, and append
// OpenClaw-style entries. What every backend says of lines and entries (parsing, header and entry tests, chaining,
// safe ids) is in the store's root (lines.ts, entries.ts, session-id.ts).
import fs from 'node:fs'
import type {FileHandle} from 'node:fs/promises'
import path from 'node:path'

import {ClawkitError, fileError} from '../../errors.js'
import {openRegular, readRegularFile, regularFileSize} from '../../os/safe-open.js'
import {chainEntries, isEntry, isHeader} from '../entries.js'
import {appendDurable, ensurePrivateDir, FILE_MODE, isEnoent} from '../fs-util.js'
import {isBlankLine, type ParsedLine, parseLine, preview} from '../lines.js'
import {DEFAULT_LOCK_TIMEOUT_MS, withLock} from '../lock.js'
import {badEntrySessionId, isSafeSessionId, transcriptFileName} from '../session-id.js'
import {transcriptTopicId} from '../session-key.js'
import {ENTRY_IDS_SINCE, headerVersion, migrateEntries} from '../transcript-migrations.js'
import type {BadLine, TranscriptEntry, TranscriptHeader} from '../transcript-types.js'
import type {AppendResult, NewEntry, ReadStats, SessionEntry, TailOptions, TranscriptLocation, TranscriptReadResult} from '../types.js'
import {linesFromEnd, readFirstLine, textLines} from './line-reader.js'

/** Advice for a transcript path that is not a regular file. */
const TRANSCRIPT_ADVICE = 'Move it out of the sessions directory (the session then reads as empty) or put the real transcript file in its place.'

/** How transcripts are opened: regular files only (a FIFO would hang the read, a directory fail with a bare EISDIR). */
export const TRANSCRIPT_FILE = {what: 'Transcript', advice: TRANSCRIPT_ADVICE}

/** Files beside transcripts that are never transcripts themselves (trajectory, checkpoints, archives, locks, backups). */
const SIDE_FILE_RES = [
  /\.trajectory\.jsonl$/,
  /\.trajectory-path\.json$/,
  /\.checkpoint\.[^.]+\.jsonl$/,
  /\.(reset|deleted|bak)\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d{3})?Z$/,
  /\.jsonl\.(reset|deleted|bak)\./,
  /\.bak-\d+-\d+$/,
  /\.lock$/,
  /\.tmp$/,
]

export function isSideFile(name: string): boolean {
  return SIDE_FILE_RES.some((re) => re.test(name))
}

/** A live transcript file name: `*.jsonl` that is not a side file. */
export function isTranscriptFileName(name: string): boolean {
  return name.endsWith('.jsonl') && !isSideFile(name)
}

export interface ResolvedTranscript {
  path: string
  location: TranscriptLocation
  exists: boolean
  /** The stored sessionFile when it could not be used as-is. */
  storedSessionFile?: string
}

function isInside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

function realpathOr(p: string): string {
  try {
    // One realpath(3) call: the JavaScript walk lstat()s every component, and an agent-wide listing resolves the
    // sessions dir once per key (~7 lstats each for 1863 keys in the search benchmark).
    return fs.realpathSync.native(p)
  } catch {
    return p
  }
}

/**
 * Find the transcript of an entry. `sessionFile` is authoritative when it resolves inside the sessions dir. An
 * absolute path elsewhere (typically the old location of a moved or restored state dir) is never followed: clawkit
 * looks for the same file name in this sessions dir instead, then falls back to `<sessionId>[-topic-<t>].jsonl`.
 * OpenClaw 2026.4.27 follows such paths into the old directory; confining reads and writes to the store's own
 * directory is a deliberate difference (docs/compatibility.md, "Compatibility decisions").
 */
export function resolveTranscriptPath(sessionsDir: string, entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): ResolvedTranscript {
  const dir = path.resolve(sessionsDir)
  const realDir = realpathOr(dir)
  const stored = typeof entry.sessionFile === 'string' ? entry.sessionFile.trim() : ''
  // A name no filesystem accepts (over 255 bytes, or a path over PATH_MAX) cannot be the transcript: ignore it like a
  // NUL byte rather than fail later with ENAMETOOLONG.
  if (stored && !stored.includes('\0') && stored.length < 4096 && Buffer.byteLength(path.basename(stored)) <= 255) {
    const candidate = path.isAbsolute(stored) ? path.normalize(stored) : path.resolve(dir, stored)
    const realCandidate = realpathOr(candidate)
    // Only a transcript name counts: a sessionFile naming sessions.json, a lock, a backup or a trajectory side file
    // must never become the file an append writes into.
    if ((isInside(dir, candidate) || isInside(realDir, candidate)) && isInside(realDir, realCandidate) && isTranscriptFileName(path.basename(candidate))) {
      return {path: assertConfined(realDir, candidate), location: 'session-file', exists: fs.existsSync(candidate)}
    }
    const base = path.basename(stored)
    if (isTranscriptFileName(base)) {
      const local = path.join(dir, base)
      if (fs.existsSync(local) && isInside(realDir, realpathOr(local))) {
        return {path: local, location: 'relocated', exists: true, storedSessionFile: stored}
      }
    }
  }
  const sessionId = typeof entry.sessionId === 'string' ? entry.sessionId : ''
  if (!isSafeSessionId(sessionId)) throw badEntrySessionId(sessionId, key)
  const topic = key ? transcriptTopicId(key) : undefined
  if (topic) {
    const topicPath = path.join(dir, transcriptFileName(sessionId, topic))
    if (fs.existsSync(topicPath)) return {path: assertConfined(realDir, topicPath), location: 'derived', exists: true, storedSessionFile: stored || undefined}
  }
  const plain = path.join(dir, transcriptFileName(sessionId))
  return {path: assertConfined(realDir, plain), location: 'derived', exists: fs.existsSync(plain), storedSessionFile: stored || undefined}
}

/**
 * A transcript named after its session id can still be a symlink to somewhere else. Reading or moving through it
 * would leave the state dir, so it is refused with the link's target named.
 */
function assertConfined(realDir: string, file: string): string {
  let link: string
  try {
    if (!fs.lstatSync(file).isSymbolicLink()) return file
    link = fs.readlinkSync(file)
  } catch {
    return file
  }
  // A dangling link counts too: appending through it would create its target wherever it points.
  const real = fs.existsSync(file) ? realpathOr(file) : path.resolve(path.dirname(file), link)
  if (!isInside(realDir, real)) {
    throw new ClawkitError(`Transcript ${file} is a symlink to ${real}, outside the sessions directory ${realDir}; clawkit does not follow it. Replace the link with the file itself (or move the file into the sessions directory).`, {code: 'E_UNSAFE_TRANSCRIPT'})
  }
  return file
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

function buildResult(file: string, lines: ParsedLine[], size: number, missingFinalNewline: boolean, partial: boolean, header?: TranscriptHeader): TranscriptReadResult {
  const badLines: BadLine[] = []
  const entries: Record<string, unknown>[] = []
  const rawLines: (string | undefined)[] = []
  let duplicateHeaders = 0
  let badHeader = false
  let sawFirst = partial // a tail read has its header passed in separately
  for (const l of lines) {
    if (l.bad) {
      badLines.push(l.bad)
      continue
    }
    if (!sawFirst) {
      sawFirst = true
      if (isHeader(l.value)) {
        header = l.value
        continue
      }
      badHeader = true
    }
    if (isHeader(l.value)) {
      if (!header) header = l.value
      else duplicateHeaders++
      continue
    }
    if (!isEntry(l.value)) {
      badLines.push({line: 0, offset: l.offset, reason: 'missing-id', preview: preview(l.raw)})
      continue
    }
    entries.push(l.value as Record<string, unknown>)
    rawLines.push(l.raw)
  }
  const version = headerVersion(header)
  const migrated = migrateEntries(version, entries)
  return {
    file,
    header,
    version,
    entries: migrated,
    // Entries given ids by a migration are no longer their lines' bytes.
    rawLines: version < ENTRY_IDS_SINCE ? migrated.map(() => undefined) : rawLines,
    badLines,
    duplicateHeaders,
    badHeader,
    missingFinalNewline,
    size,
    partial,
  }
}

function splitLines(text: string, baseOffset: number, lineBase: number, lastIsComplete: boolean): ParsedLine[] {
  const out: ParsedLine[] = []
  for (const l of textLines(text, baseOffset, lineBase, lastIsComplete)) out.push(parseLine(l.raw, l.offset, l.line, l.torn))
  return out
}

/** Read and parse a whole transcript. Missing file: ENOENT is thrown to the caller. */
export async function readTranscript(file: string): Promise<TranscriptReadResult> {
  return parseTranscript(
    file,
    await readRegularFile(file, TRANSCRIPT_FILE).catch((error: unknown) => {
      // An I/O error fails at the read, and Node's message then names no file.
      throw fileError(error, file, 'read the transcript')
    }),
  )
}

/** A whole transcript already in memory, parsed as readTranscript does. */
export function parseTranscript(file: string, buf: Buffer): TranscriptReadResult {
  const text = buf.toString('utf8')
  const missingFinalNewline = buf.length > 0 && buf[buf.length - 1] !== 0x0a
  return buildResult(file, splitLines(text, 0, 1, !missingFinalNewline), buf.length, missingFinalNewline, false)
}

const MAX_HEADER_BYTES = 1024 * 1024

async function readHeaderLine(fh: FileHandle, size: number, stats?: ReadStats): Promise<{header?: TranscriptHeader; endOffset: number}> {
  const first = await readFirstLine(fh, size, MAX_HEADER_BYTES, stats)
  const parsed = parseLine(first.raw, 0, 1, !first.complete)
  return {header: isHeader(parsed.value) ? parsed.value : undefined, endOffset: first.endOffset}
}

/** `{"type":"<t>"` at the start of a line, as every JSONL writer of OpenClaw and pi lays entries out. */
const LEADING_TYPE_RE = /^\s*\{\s*"type"\s*:\s*"([^"\\]{1,64})"\s*,/

/**
 * Read only the end of a transcript, seeking backwards in 64 KiB chunks until `limit` counted entries are found.
 * Memory stays proportional to what is shown, whatever the file size. v1 files (no ids) fall back to a whole read,
 * since their ids only exist after migrating from the start.
 */
/**
 * Past the window: does this line hold an entry that counts? The entries before the first message (model_change,
 * thinking level, snapshots) are no reason to say that more exist. Only the `{"type":…` at the start is looked at when
 * it names a type, so a 20 MB tool result before the window is not parsed just to learn that it is a message.
 */
function countsBeforeWindow(raw: string, offset: number, count: (e: TranscriptEntry) => boolean): boolean {
  if (isBlankLine(raw)) return false
  const type = LEADING_TYPE_RE.exec(raw.slice(0, 128))?.[1]
  if (type !== undefined) return count({type, id: '', parentId: null, timestamp: ''} as TranscriptEntry)
  const parsed = parseLine(raw, offset, 0, false)
  return Boolean(parsed.value && isEntry(parsed.value) && count(parsed.value as TranscriptEntry))
}

export async function tailTranscript(file: string, opts: TailOptions): Promise<TranscriptReadResult> {
  try {
    return await tailTranscriptUnnamed(file, opts)
  } catch (error) {
    // A read of a directory of that name (or an I/O error) fails on the descriptor, and Node's message names no file.
    throw fileError(error, file, 'read the transcript')
  }
}

async function tailTranscriptUnnamed(file: string, opts: TailOptions): Promise<TranscriptReadResult> {
  const {fh, stat} = await openRegular(file, TRANSCRIPT_FILE)
  let fallback = false
  try {
    const {size} = stat
    const {header, endOffset} = await readHeaderLine(fh, size, opts.stats)
    if (!header || headerVersion(header) < ENTRY_IDS_SINCE) {
      fallback = true
    } else {
      const count = opts.count ?? (() => true)
      const lastByte = Buffer.alloc(1)
      if (size > 0) await fh.read(lastByte, 0, 1, size - 1)
      const missingFinalNewline = size > 0 && lastByte[0] !== 0x0a
      const collected: ParsedLine[] = []
      let counted = 0
      let reachedStart = true
      for await (const line of linesFromEnd(fh, endOffset, size, opts.stats)) {
        if (counted >= opts.limit) {
          if (!opts.exactPartial || countsBeforeWindow(line.raw, line.offset, count)) {
            reachedStart = false
            break
          }
          continue
        }
        if (isBlankLine(line.raw)) continue
        const parsed = parseLine(line.raw, line.offset, 0, missingFinalNewline && line.byteEnd === size)
        collected.push(parsed)
        if (parsed.value && isEntry(parsed.value) && count(parsed.value as TranscriptEntry)) counted++
      }
      collected.reverse()
      const result = buildResult(file, collected, size, missingFinalNewline, true, header)
      result.partial = !reachedStart
      return result
    }
  } finally {
    await fh.close().catch(() => {})
  }
  if (fallback) return readTranscript(file)
  throw new Error('unreachable')
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

/** The session header of a transcript (its first line), or undefined when the first line is not one. */
export async function readTranscriptHeader(file: string): Promise<TranscriptHeader | undefined> {
  const {fh, stat} = await openRegular(file, TRANSCRIPT_FILE)
  try {
    return (await readHeaderLine(fh, stat.size)).header
  } catch (error) {
    throw fileError(error, file, 'read the transcript')
  } finally {
    await fh.close()
  }
}

export interface AppendOptions {
  /** Header to write when the file is missing or holds no entries yet. */
  header?: TranscriptHeader
  lockTimeoutMs?: number
  now?: () => Date
}

/** The id of the last entry in the file (the leaf), read from the end. */
export async function readLeafId(file: string): Promise<{leafId: string | null; ids: Set<string>; hasEntries: boolean; missingFinalNewline: boolean}> {
  try {
    const tail = await tailTranscript(file, {limit: 1, count: (e) => typeof e.id === 'string'})
    const last = [...tail.entries].reverse().find((e) => typeof e.id === 'string')
    return {leafId: last?.id ?? null, ids: new Set(tail.entries.map((e) => e.id)), hasEntries: tail.entries.length > 0, missingFinalNewline: tail.missingFinalNewline}
  } catch (error) {
    if (isEnoent(error)) return {leafId: null, ids: new Set(), hasEntries: false, missingFinalNewline: false}
    throw error
  }
}

/**
 * Append entries under `<file>.lock`, chained onto the current leaf. A missing file is created (0600) with the
 * given header. A torn last line is left in place and fenced off with a newline so the new lines stay parseable.
 */
export async function appendEntries(file: string, items: NewEntry[], opts: AppendOptions = {}): Promise<AppendResult> {
  return withLock(file, () => appendEntriesLocked(file, items, opts), {timeoutMs: opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS})
}

/** appendEntries for callers that already hold the transcript lock (an agent turn holds it for the whole turn). */
export async function appendEntriesLocked(file: string, items: NewEntry[], opts: AppendOptions = {}): Promise<AppendResult> {
  await ensurePrivateDir(path.dirname(file))
  const state = await readLeafId(file)
  let prefix = ''
  let created = false
  const size = (await regularFileSize(file, TRANSCRIPT_FILE)) ?? 0
  if (size === 0) {
    if (!opts.header) throw new Error(`cannot create ${file} without a session header`)
    prefix = `${JSON.stringify(opts.header)}\n`
    created = true
  } else if (!(await readTranscriptHeader(file))) {
    // pi would rewrite such a file with a fresh header; appending JSONL to something that is not a transcript (or
    // whose header is damaged) could only make things worse, so the user gets an error and doctor gets the file.
    throw new ClawkitError(`${file} does not start with a session header, so it is not a transcript clawkit can append to. Nothing was written; run "clawkit doctor" to inspect it.`, {code: 'E_NOT_A_TRANSCRIPT'})
  } else if (state.missingFinalNewline) {
    prefix = '\n'
  }
  const entries = chainEntries(items, state.leafId, state.ids, opts.now)
  const text = prefix + entries.map((e) => `${JSON.stringify(e)}\n`).join('')
  await appendDurable(file, text, FILE_MODE, TRANSCRIPT_FILE)
  return {entries, created}
}
