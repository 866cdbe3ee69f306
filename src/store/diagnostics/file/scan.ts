// One cheap pass over a store: its directory listing (with stats), its parsed index, and fast transcript resolution.
import fs from 'node:fs'
import path from 'node:path'

import {CorruptFileError} from '../../../errors.js'
import {openRegularSync, readRegularFileSync} from '../../../os/safe-open.js'
import {startsWithBom} from '../../../text/bom.js'
import {isEntryObject, projectEntries, SCAN_MIN_BYTES} from '../../file/index-scan.js'
import {parseStoreText, STORE_FILE} from '../../file/store.js'
import {isTranscriptFileName, resolveTranscriptPath, type ResolvedTranscript} from '../../file/transcript.js'
import {storeDataFrom} from '../../index-data.js'
import {LOCK_SCRATCH_RE} from '../../lock.js'
import {isSafeSessionId} from '../../session-id.js'
import {transcriptTopicId} from '../../session-key.js'
import type {OpenClawState} from '../../state.js'
import type {SessionEntry, SessionStoreData} from '../../types.js'

export interface FileInfo {
  name: string
  path: string
  size: number
  mode: number
  uid: number
  mtimeMs: number
}

export interface StoreScan {
  /** The first agent using this store (a shared `session.store` without {agentId} serves several). */
  agentId: string
  agentIds: string[]
  configured: boolean
  storePath: string
  sessionsDir: string
  realSessionsDir: string
  dirExists: boolean
  dirStat?: fs.Stats
  storeStat?: fs.Stats
  /** Parsed index; undefined when missing or corrupt. */
  data?: SessionStoreData
  storeError?: CorruptFileError
  /** sessions.json exists but cannot be read (permissions, I/O error). */
  readError?: string
  /** sessions.json starts with a UTF-8 byte order mark (OpenClaw 2026.4.27 reads such a file as empty). */
  storeBom?: boolean
  /** Every name in the sessions dir. */
  names: Set<string>
  /** Live transcripts (`*.jsonl` that are not side files), with stats. */
  transcripts: FileInfo[]
  /** The same transcripts by file name. */
  byName: Map<string, FileInfo>
  /** `*.lock` files in the sessions dir. */
  locks: string[]
  /** Leftover `sessions.json.*.tmp` files (index writes; lock scratch files excluded). */
  tmps: FileInfo[]
  /** Lock scratch files (`<file>.lock.<pid>.<hex>.tmp`) of the store or any transcript lock. */
  lockScratch: FileInfo[]
  /** `sessions.json.bak.*` files. */
  backups: FileInfo[]
}

function statOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p)
  } catch {
    return undefined
  }
}

function info(dir: string, name: string): FileInfo | undefined {
  // `dir` is already normalized (the dirname of a resolved store path) and `name` a plain directory entry, so path.join's
  // normalization is wasted work, 10 000 times in a large sessions dir.
  const p = dir.endsWith(path.sep) ? dir + name : dir + path.sep + name
  // lstat: a symlink is not one of this store's files (its target may live outside the state dir).
  let st: fs.Stats | undefined
  try {
    st = fs.lstatSync(p)
  } catch {
    st = undefined
  }
  if (!st || !st.isFile()) return undefined
  return {name, path: p, size: st.size, mode: st.mode, uid: st.uid, mtimeMs: st.mtimeMs}
}

/**
 * Fields no check reads, and most of a real entry's ~16 KB (OpenClaw 2026.4.27 keeps the skills prompt and a prompt
 * report in every entry). Left out of the scan's copy of the index, so that a real-sized index (10 000 entries,
 * ~170 MB) is not held whole; repairs never write from this copy (they re-read the index under its lock).
 */
export const UNREAD_ENTRY_FIELDS = ['skillsSnapshot', 'systemPromptReport'] as const

function withoutBulkyFields(_key: string, value: unknown): unknown {
  if (!isEntryObject(value) || !UNREAD_ENTRY_FIELDS.some((f) => f in value)) return value
  const copy: Record<string, unknown> = {...value}
  for (const f of UNREAD_ENTRY_FIELDS) delete copy[f]
  return copy
}

/** The index is read entry by entry from SCAN_MIN_BYTES on (src/store/file/index-scan.ts), otherwise parsed whole. */
export async function scanStore(agentIds: string[], configured: boolean, storePath: string): Promise<StoreScan> {
  const sessionsDir = path.dirname(storePath)
  let realSessionsDir = sessionsDir
  try {
    realSessionsDir = fs.realpathSync(sessionsDir)
  } catch {}
  const scan: StoreScan = {
    agentId: agentIds[0],
    agentIds,
    configured,
    storePath,
    sessionsDir,
    realSessionsDir,
    dirExists: false,
    names: new Set(),
    transcripts: [],
    byName: new Map(),
    locks: [],
    tmps: [],
    lockScratch: [],
    backups: [],
  }
  scan.dirStat = statOrUndefined(sessionsDir)
  scan.dirExists = Boolean(scan.dirStat?.isDirectory())
  if (!scan.dirExists) return scan
  const storeBase = path.basename(storePath)
  let names: string[] = []
  try {
    names = fs.readdirSync(sessionsDir)
  } catch {}
  for (const name of names) {
    scan.names.add(name)
    if (isTranscriptFileName(name)) {
      const fi = info(sessionsDir, name)
      if (fi) {
        scan.transcripts.push(fi)
        scan.byName.set(name, fi)
      }
    } else if (name.endsWith('.lock')) scan.locks.push(path.join(sessionsDir, name))
    else if (LOCK_SCRATCH_RE.test(name)) {
      const fi = info(sessionsDir, name)
      if (fi) scan.lockScratch.push(fi)
    } else if (name.startsWith(`${storeBase}.`) && name.endsWith('.tmp')) {
      const fi = info(sessionsDir, name)
      if (fi) scan.tmps.push(fi)
    } else if (name.startsWith(`${storeBase}.bak.`)) {
      const fi = info(sessionsDir, name)
      if (fi) scan.backups.push(fi)
    }
  }
  scan.storeStat = statOrUndefined(storePath)
  if (scan.storeStat && !scan.storeStat.isFile()) {
    scan.readError = 'it is not a regular file'
    scan.storeStat = undefined
  } else if (scan.storeStat) {
    try {
      if (scan.storeStat.size < SCAN_MIN_BYTES) {
        // Buffer then toString: on Node 20 readFileSync(…, 'utf8') decodes through V8 and took ~35 ms on a 10 MB index,
        // against ~22 ms this way (BENCHMARKS.md).
        const buf = readRegularFileSync(storePath, STORE_FILE)
        scan.storeBom = startsWithBom(buf)
        scan.data = parseStoreText(buf.toString('utf8'), storePath)
      } else {
        const head = Buffer.alloc(3)
        const {fd} = openRegularSync(storePath, STORE_FILE)
        try {
          scan.storeBom = startsWithBom(head.subarray(0, fs.readSync(fd, head, 0, 3, 0)))
        } finally {
          fs.closeSync(fd)
        }
        const entries = await projectEntries(storePath, withoutBulkyFields, (text) => parseStoreText(text, storePath), {file: STORE_FILE})
        if (entries) scan.data = storeDataFrom(entries)
      }
    } catch (error) {
      if (error instanceof CorruptFileError) scan.storeError = error
      else scan.readError = (error as Error).message
    }
  }
  return scan
}

/** Every distinct store of the agents in scope (agents sharing one sessions.json are scanned once). */
export async function scanStores(state: OpenClawState, agentIds: string[]): Promise<StoreScan[]> {
  const configured = new Set(state.configuredAgentIds())
  const byPath = new Map<string, string[]>()
  for (const id of agentIds) {
    const p = state.storeRef(id).path
    const list = byPath.get(p)
    if (list) list.push(id)
    else byPath.set(p, [id])
  }
  const scans: StoreScan[] = []
  for (const [p, ids] of byPath) scans.push(await scanStore(ids, ids.some((i) => configured.has(i)), p))
  return scans
}

/**
 * resolveTranscriptPath from the directory listing instead of per-entry stats: the same answers for the common
 * shapes (a plain name in the sessions dir, a path into another state dir, no sessionFile), delegating anything
 * unusual (subdirectories, symlinks) to the exact resolver.
 */
export function resolveFromScan(scan: Pick<StoreScan, 'sessionsDir' | 'realSessionsDir' | 'names'>, entry: SessionEntry, key: string): ResolvedTranscript {
  const dir = scan.sessionsDir
  const stored = typeof entry.sessionFile === 'string' ? entry.sessionFile.trim() : ''
  // Fast path for the shape OpenClaw writes: an absolute path straight inside this sessions dir.
  if (stored.startsWith(dir) && stored.charCodeAt(dir.length) === 47 /* / */) {
    const base = stored.slice(dir.length + 1)
    if (base && !base.includes('/') && base !== '.' && base !== '..' && !base.includes('\0')) return {path: stored, location: 'session-file', exists: scan.names.has(base)}
  }
  if (stored && !stored.includes('\0')) {
    const candidate = path.isAbsolute(stored) ? path.normalize(stored) : path.resolve(dir, stored)
    const parent = path.dirname(candidate)
    const base = path.basename(candidate)
    if (parent === dir || parent === scan.realSessionsDir) {
      return {path: path.join(dir, base), location: 'session-file', exists: scan.names.has(base)}
    }
    const rel = path.relative(dir, candidate)
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) return resolveTranscriptPath(dir, entry, key)
    if (isTranscriptFileName(base) && scan.names.has(base)) {
      return {path: path.join(dir, base), location: 'relocated', exists: true, storedSessionFile: stored}
    }
  }
  const sessionId = typeof entry.sessionId === 'string' ? entry.sessionId.trim() : ''
  if (!isSafeSessionId(sessionId)) return resolveTranscriptPath(dir, entry, key) // throws the usual error
  const topic = transcriptTopicId(key)
  if (topic) {
    const name = `${sessionId}-topic-${encodeURIComponent(topic)}.jsonl`
    if (scan.names.has(name)) return {path: path.join(dir, name), location: 'derived', exists: true, storedSessionFile: stored || undefined}
  }
  const name = `${sessionId}.jsonl`
  return {path: path.join(dir, name), location: 'derived', exists: scan.names.has(name), storedSessionFile: stored || undefined}
}

