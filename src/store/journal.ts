// The journal of every change clawkit makes to a store: one directory per change in clawkit's data dir (never the
// state dir), written ahead of the change, holding what it changed and enough to reverse it.
//
// Layout: `<data>/journal/<id>/entry.json` (what, when, on which state dir, its status), `steps/<n>.json` (one per
// unit of work, each written and synced BEFORE that unit touches the store) and `blobs/<sha256>` (bytes that left the
// store: removed files, the index before a rewrite, a database's rows before and after). A step records a before and
// an after image of everything it changes (file/journal.ts: files and the index; sqlite/journal.ts: rows); undo.ts
// moves the store from one image to the other, in either direction, and refuses when the store matches neither.
//
// Crash safety comes from that order: a step's record is durable before its change starts, and every change is
// atomic at the level its image describes (a rename, an atomic replace, one SQLite transaction). After a kill -9 each
// step is wholly in its before or its after image, so `clawkit undo` reverts what happened and skips what did not.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ClawkitError, ExitCode, fileError, NotFoundError} from '../errors.js'
import {parseDurationMs} from '../config/units.js'
import {clawkitDirs, loadSettings, settingsPath} from '../settings.js'
import {sha256} from '../util/hash.js'
import {DIR_MODE, ensurePrivateDir, FILE_MODE, fsyncDir, isEnoent, realLocation, writeFileAtomic} from './fs-util.js'
import {withLock} from './lock.js'
import {randomUUID} from './random-id.js'
import {normalizeSessionKey} from './session-key.js'

/** What a change was: the command that made it. */
export type JournalAction = 'cleanup' | 'archive' | 'delete' | 'restore' | 'reset' | 'doctor-fix' | 'undo'

/**
 * `pending`: begun and not finished (a crash, a kill, an error part-way: each step is in its before or after image);
 * `applied`: finished; `undone`: reversed by a later entry (`undoneBy`).
 */
export type JournalStatus = 'pending' | 'applied' | 'undone'

export interface JournalEntryMeta {
  format: 1
  id: string
  createdAt: string
  /** The state dir the change was made to, as its real path. */
  stateDir: string
  action: JournalAction
  /** The command as the user would type it again (`sessions delete agent:main:x`). */
  command: string
  /** One line: what it changed. */
  summary: string
  status: JournalStatus
  /** An undo's entry: the id it undid (undoing an undo applies that entry again). */
  undoes?: string
  undoneBy?: string
  finishedAt?: string
  /** An undo's progress: how many of the undone entry's steps it has replayed (an interrupted undo resumes after them). */
  replayed?: number
  /** Bytes the entry keeps (its blobs), counted when it finished. */
  bytes?: number
}

/** A file as one image of a step sees it: absent, or its content (by hash), mode and modification time. */
export type FileImage = {exists: false} | {exists: true; sha256: string; size: number; mode: number; mtimeMs: number}

export const ABSENT: FileImage = {exists: false}

interface StepBase {
  /** 1-based, in the order the steps were made; undo runs them backwards. */
  n: number
  agentId: string
  /** The store the step changed: its ref's path (sessions.json, or the agent database). */
  store: string
  /** What this step changed, for listings and refusals ("delete agent:main:x"). */
  label: string
}

/**
 * Files of the JSON layout (transcripts, archives, sidecars, leftovers) or published archive files of the SQLite era.
 * `locks`: the live transcripts whose OpenClaw locks are held while the files move (transcripts before the index).
 */
export interface FilesStep extends StepBase {
  kind: 'files'
  files: StepFile[]
  locks?: string[]
  /**
   * A snapshot taken before a change whose effects are only known at its end (doctor --fix): until the step is
   * recorded again with its after images, undo puts its `targets` back to their before images whatever they hold, gives
   * the other paths back their mode where their content is still the one imaged, and takes away the files a target's
   * repair made beside it (journal-files.ts openSnapshotMoves); a path another writer changed meanwhile is left alone.
   */
  open?: boolean
  /** An open snapshot's targets: the paths its change may write (their bytes are kept). */
  targets?: string[]
}

/**
 * One path of a files step. `modeOnly`: a SQLite database whose mode a repair changed (a chmod): its content is not
 * imaged (its rows are journaled by rows steps, and other writers change its pages), so only its mode is put back and
 * the images' `sha256` is empty.
 */
export interface StepFile {
  path: string
  before: FileImage
  after: FileImage
  modeOnly?: boolean
}

/** One key of an index rewrite: its entry before and after (absent: undefined), and where it stood in the file. */
export interface IndexChange {
  key: string
  before?: Record<string, unknown>
  after?: Record<string, unknown>
  /** Its position among the keys before the change (undo puts a removed key back there). */
  position?: number
}

/**
 * A rewrite of a JSON-era sessions.json under its lock: the file before (its bytes are a blob) and after, and the
 * keys that changed, so that an undo can merge when other keys have changed since.
 */
export interface IndexStep extends StepBase {
  kind: 'index'
  path: string
  before: FileImage
  after: FileImage
  changes: IndexChange[]
}

/** The keys and session ids whose rows a SQLite step captured (sqlite/journal.ts says which rows of which tables). */
export interface RowScope {
  keys: string[]
  sessionIds: string[]
}

/** One SQLite transaction: every row of its scope before and after (each image a blob of JSON), and their hashes. */
export interface RowsStep extends StepBase {
  kind: 'rows'
  scope: RowScope
  before: {blob: string; hash: string}
  after: {blob: string; hash: string}
}

export type JournalStep = FilesStep | IndexStep | RowsStep

/** A step as it is being made: its number is given by the entry. */
export type NewStep = Omit<FilesStep, 'n'> | Omit<IndexStep, 'n'> | Omit<RowsStep, 'n'>

/** A state dir as the journal names it (its real path): entries of one state dir are found by it. */
export function journalStateDir(stateDir: string): string {
  return realLocation(stateDir)
}

/** The journal's place: `<data>/journal` (CLAWKIT_DATA_DIR moves it, with the rest of clawkit's data). */
export function journalRoot(env: Record<string, string | undefined> = process.env): string {
  return path.join(clawkitDirs(env).data, 'journal')
}

const ENTRY_FILE = 'entry.json'
const ID_RE = /^\d{8}-\d{6}-[0-9a-f]{4}$/

/** `20261128-044500-a1b2`: sortable by time, typed easily, unique (re-drawn on collision). */
function newId(now: Date): string {
  const t = now.toISOString()
  return `${t.slice(0, 10).replaceAll('-', '')}-${t.slice(11, 19).replaceAll(':', '')}-${randomUUID().slice(0, 4)}`
}

/** Hash a file's bytes as stored, streamed. */
export async function hashFile(file: string): Promise<{sha256: string; size: number}> {
  const h = sha256()
  let size = 0
  for await (const chunk of fs.createReadStream(file)) {
    h.update(chunk as Buffer)
    size += (chunk as Buffer).length
  }
  return {sha256: h.digest('hex'), size}
}

export function hashBytes(bytes: string | Uint8Array): string {
  return sha256().update(bytes).digest('hex')
}

/**
 * Crash trials only (test/reliability/journal-kill*.test.ts): SIGKILL this process at a named point of the journal's
 * protocol (`record:<n>` right after step n is durable, `finish` before an entry is marked done, `replay:<n>` after an
 * undo replayed its n-th step, `snapshot:<n>` after doctor's repairs ran and before their open step n is completed),
 * so that every point between two durable records is tried, deterministically.
 */
export function killPoint(name: string): void {
  if (process.env.CLAWKIT_TEST_KILL_AT === name) process.kill(process.pid, 'SIGKILL')
}

/** A failure of the journal itself: nothing of the change it was to record was made. */
export class JournalError extends ClawkitError {
  constructor(message: string, cause?: unknown) {
    super(message, {code: 'E_JOURNAL', exitCode: ExitCode.failure, cause, suggestions: ['"clawkit undo --list" shows the journal; --no-journal makes the change without one (it then cannot be undone).']})
  }
}

/** The journal of one user: every entry, each a directory. */
export class Journal {
  readonly root: string

  constructor(root: string) {
    this.root = root
  }

  static open(env: Record<string, string | undefined> = process.env): Journal {
    return new Journal(journalRoot(env))
  }

  /**
   * Begin an entry. Nothing is written until its first step is recorded (a change that fails before it touches the
   * store leaves no trace in the data dir); then its directory and entry.json (status pending) are made durable first.
   */
  async begin(meta: {stateDir: string; action: JournalAction; command: string; summary: string; undoes?: string; now?: Date}): Promise<JournalEntry> {
    const now = meta.now ?? new Date()
    const id = newId(now)
    return new JournalEntry(this, path.join(this.root, id), {
      format: 1,
      id,
      createdAt: now.toISOString(),
      stateDir: realLocation(meta.stateDir),
      action: meta.action,
      command: meta.command,
      summary: meta.summary,
      status: 'pending',
      ...(meta.undoes ? {undoes: meta.undoes} : {}),
    }, false)
  }

  /** One entry by id; NotFoundError when there is none. */
  async open(id: string): Promise<JournalEntry> {
    if (!ID_RE.test(id)) throw new NotFoundError(`No journal entry "${id}" (ids look like 20261128-044500-a1b2; "clawkit undo --list" shows them).`, 'E_JOURNAL_NOT_FOUND')
    const dir = path.join(this.root, id)
    let meta: JournalEntryMeta
    try {
      meta = JSON.parse(await fsp.readFile(path.join(dir, ENTRY_FILE), 'utf8'))
    } catch (error) {
      if (isEnoent(error)) throw new NotFoundError(`No journal entry "${id}" in ${this.root} ("clawkit undo --list" shows the entries).`, 'E_JOURNAL_NOT_FOUND')
      throw new JournalError(`Journal entry ${id} is unreadable (${(error as Error).message}); it is left as it is.`, error)
    }
    return new JournalEntry(this, dir, meta, true)
  }

  /** Every readable entry, newest first; with `stateDir`, only that state dir's. An entry being begun may be missed. */
  async list(opts: {stateDir?: string} = {}): Promise<JournalEntryMeta[]> {
    let names: string[]
    try {
      names = await fsp.readdir(this.root)
    } catch (error) {
      if (isEnoent(error)) return []
      throw fileError(error, this.root, 'list')
    }
    const want = opts.stateDir === undefined ? undefined : realLocation(opts.stateDir)
    const out: JournalEntryMeta[] = []
    for (const name of names.filter((n) => ID_RE.test(n))) {
      try {
        const meta = JSON.parse(await fsp.readFile(path.join(this.root, name, ENTRY_FILE), 'utf8')) as JournalEntryMeta
        if (want === undefined || meta.stateDir === want) out.push(meta)
      } catch {
        // A directory whose entry.json is not written yet (being begun) or was damaged: not an entry to act on.
      }
    }
    // Newest first by creation time (ms): ids made within one second do not sort by their random part.
    return out.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
  }

  /**
   * Remove entries older than `olderThanMs` (all of them with 0). An entry still pending is kept whatever its age
   * unless `pending` is set: it may be the only way back from an interrupted change. Returns what was removed.
   */
  async prune(olderThanMs: number, opts: {now?: Date; stateDir?: string; pending?: boolean} = {}): Promise<{removed: JournalEntryMeta[]; bytes: number}> {
    const now = (opts.now ?? new Date()).getTime()
    const removed: JournalEntryMeta[] = []
    let bytes = 0
    for (const meta of await this.list({stateDir: opts.stateDir})) {
      if (now - Date.parse(meta.createdAt) < olderThanMs) continue
      if (meta.status === 'pending' && !opts.pending) continue
      const dir = path.join(this.root, meta.id)
      bytes += await dirBytes(dir)
      await fsp.rm(dir, {recursive: true, force: true})
      removed.push(meta)
    }
    return {removed, bytes}
  }

  /** Run `fn` holding the journal's lock: undos take turns, so no entry is undone twice at once. */
  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return (async () => {
      await ensurePrivateDir(this.root)
      return withLock(path.join(this.root, 'undo'), fn, {timeoutMs: 60_000})
    })()
  }
}

/**
 * The session clawkit itself last removed from a JSON-era index under `key` (a delete's or a cleanup's index step, in
 * an entry still applied), newest entry first: a `.deleted.` archive names only its sessionId, so after a delete the
 * journal is what still ties the archive to its key. Undefined when the journal holds no such removal (pruned, undone,
 * or made by OpenClaw).
 */
export async function journaledRemoval(journal: Journal, o: {stateDir: string; store: string; key: string}): Promise<string | undefined> {
  const key = normalizeSessionKey(o.key)
  for (const meta of await journal.list({stateDir: o.stateDir})) {
    if (meta.status !== 'applied' || (meta.action !== 'delete' && meta.action !== 'cleanup')) continue
    const steps = await (await journal.open(meta.id)).steps().catch(() => [] as JournalStep[])
    for (const step of steps.reverse()) {
      if (step.kind !== 'index' || path.resolve(step.store) !== path.resolve(o.store)) continue
      const c = step.changes.find((x) => normalizeSessionKey(x.key) === key && x.before !== undefined && x.after === undefined)
      if (c && typeof c.before?.sessionId === 'string') return c.before.sessionId
    }
  }
  return undefined
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0
  let names: fs.Dirent[]
  try {
    names = await fsp.readdir(dir, {withFileTypes: true})
  } catch {
    return 0
  }
  for (const d of names) {
    const p = path.join(dir, d.name)
    if (d.isDirectory()) total += await dirBytes(p)
    else total += (await fsp.lstat(p).catch(() => undefined))?.size ?? 0
  }
  return total
}

/** One entry being written or read back. */
export class JournalEntry {
  readonly journal: Journal
  dir: string
  meta: JournalEntryMeta
  private nextStep = 1
  /** Whether its directory and entry.json exist (an entry is made on its first write). */
  private made: boolean

  constructor(journal: Journal, dir: string, meta: JournalEntryMeta, made: boolean) {
    this.journal = journal
    this.dir = dir
    this.meta = meta
    this.made = made
  }

  /** Whether anything of this entry was written (a step, a blob). */
  get exists(): boolean {
    return this.made
  }

  /** Make the entry's directory and entry.json (pending), durable, under a fresh id if its own is taken. */
  private async make(): Promise<void> {
    if (this.made) return
    try {
      await ensurePrivateDir(this.journal.root)
      for (;;) {
        try {
          await fsp.mkdir(this.dir, {mode: DIR_MODE})
          break
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
          const id = newId(new Date(this.meta.createdAt))
          this.meta = {...this.meta, id}
          this.dir = path.join(this.journal.root, id)
        }
      }
      this.made = true
      await this.saveMeta()
      await fsyncDir(this.journal.root)
    } catch (error) {
      if (error instanceof ClawkitError) throw error
      throw new JournalError(`Cannot write the journal in ${this.journal.root}: ${(error as Error).message}; nothing was changed.`, error)
    }
  }

  get id(): string {
    return this.meta.id
  }

  get blobsDir(): string {
    return path.join(this.dir, 'blobs')
  }

  async saveMeta(): Promise<void> {
    await writeFileAtomic(path.join(this.dir, ENTRY_FILE), `${JSON.stringify(this.meta, null, 2)}\n`)
  }

  /**
   * Record a step before it is made: its record is written and synced (atomic rename, directory synced) when this
   * returns, so a crash during the change finds it.
   */
  async record(step: NewStep): Promise<JournalStep> {
    await this.make()
    const stepsDir = path.join(this.dir, 'steps')
    await ensurePrivateDir(stepsDir)
    const n = this.nextStep++
    const full = {...step, n} as JournalStep
    await writeFileAtomic(path.join(stepsDir, `${String(n).padStart(5, '0')}.json`), `${JSON.stringify(full)}\n`)
    killPoint(`record:${n}`)
    return full
  }

  /** Replace a recorded step (a step whose after image is only known at its end, written before it commits). */
  async rerecord(step: JournalStep): Promise<void> {
    await writeFileAtomic(path.join(this.dir, 'steps', `${String(step.n).padStart(5, '0')}.json`), `${JSON.stringify(step)}\n`)
  }

  /** The recorded steps, in the order they were made. */
  async steps(): Promise<JournalStep[]> {
    if (!this.made) return []
    const stepsDir = path.join(this.dir, 'steps')
    let names: string[]
    try {
      names = (await fsp.readdir(stepsDir)).filter((n) => /^\d{5}\.json$/.test(n)).sort()
    } catch (error) {
      if (isEnoent(error)) return []
      throw error
    }
    const out: JournalStep[] = []
    for (const n of names) out.push(JSON.parse(await fsp.readFile(path.join(stepsDir, n), 'utf8')) as JournalStep)
    this.nextStep = Math.max(this.nextStep, (out.at(-1)?.n ?? 0) + 1)
    return out
  }

  /** Where a blob of this entry is (it may not exist). */
  blobPath(hash: string): string {
    return path.join(this.blobsDir, hash)
  }

  /** Bytes kept as a blob (written atomically and synced); returns its hash. */
  async putBlob(bytes: string | Uint8Array): Promise<string> {
    await this.make()
    const hash = hashBytes(bytes)
    const dest = this.blobPath(hash)
    if (!fs.existsSync(dest)) {
      await ensurePrivateDir(this.blobsDir)
      await writeFileAtomic(dest, bytes)
    }
    return hash
  }

  /**
   * Move a file of the store into this entry's blobs (same filesystem: a rename; else a synced copy, then the
   * original is removed). Its hash must be `hash` (checked on the copy path; a rename keeps the bytes). Afterwards the
   * file is gone from the store and its bytes are here, durable, in either order a crash leaves them.
   */
  async takeFile(file: string, hash: string): Promise<void> {
    await this.make()
    await ensurePrivateDir(this.blobsDir)
    const dest = this.blobPath(hash)
    if (fs.existsSync(dest)) {
      // The same bytes are kept already (two files with one content, or a re-run after a crash): only remove.
      await fsp.rm(file)
      await fsyncDir(path.dirname(file))
      return
    }
    try {
      await fsp.rename(file, dest)
      await fsyncDir(this.blobsDir)
      await fsyncDir(path.dirname(file))
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    }
    const tmp = `${dest}.${randomUUID()}.tmp`
    await fsp.copyFile(file, tmp)
    const got = await hashFile(tmp)
    if (got.sha256 !== hash) {
      await fsp.rm(tmp, {force: true})
      throw new JournalError(`${file} changed while it was being moved into the journal; it was left where it is.`)
    }
    const fh = await fsp.open(tmp, 'r+')
    await fh.sync()
    await fh.close()
    await fsp.chmod(tmp, FILE_MODE)
    await fsp.rename(tmp, dest)
    await fsyncDir(this.blobsDir)
    await fsp.rm(file)
    await fsyncDir(path.dirname(file))
  }

  /** Read a blob of this entry (or, for an undo, of the entry it undoes and so on back). */
  async readBlob(hash: string): Promise<Buffer> {
    const p = await this.findBlob(hash)
    if (!p) throw new JournalError(`Journal entry ${this.id} has lost the bytes it needs (blob ${hash.slice(0, 12)}); nothing was changed.`)
    return fsp.readFile(p)
  }

  /** The path of a blob here or in the entries this one undoes; undefined when none holds it. */
  async findBlob(hash: string): Promise<string | undefined> {
    let e: JournalEntry | undefined = this
    const seen = new Set<string>()
    while (e && !seen.has(e.id)) {
      seen.add(e.id)
      const p = e.blobPath(hash)
      if (fs.existsSync(p)) return p
      e = e.meta.undoes ? await this.journal.open(e.meta.undoes).catch(() => undefined) : undefined
    }
    return undefined
  }

  async finish(status: JournalStatus, extra: Partial<JournalEntryMeta> = {}): Promise<void> {
    await this.make()
    killPoint(`finish:${this.meta.action}`)
    this.meta = {...this.meta, ...extra, status, finishedAt: new Date().toISOString(), bytes: await dirBytes(this.blobsDir)}
    await this.saveMeta()
  }
}

/** The journal's retention: clawkit's `journalRetention` setting (a bare number is days), 30 days by default. */
export const DEFAULT_JOURNAL_RETENTION_MS = 30 * 86_400_000

export function journalRetentionMs(env: Record<string, string | undefined> = process.env): number {
  const raw = loadSettings(env).journalRetention
  if (raw === undefined) return DEFAULT_JOURNAL_RETENTION_MS
  try {
    return parseDurationMs(raw, 'd')
  } catch (error) {
    throw new ClawkitError(`clawkit's journalRetention setting is invalid: ${(error as Error).message} Fix it in ${settingsPath(env)}.`, {code: 'E_SETTINGS_INVALID', exitCode: ExitCode.usage})
  }
}

/** A change as the journal saw it: the entry's id and status, null with --no-journal. */
export interface JournaledResult<T> {
  result: T
  journal: JournalEntryMeta | null
}

/**
 * Run one change journaled: entries past the retention are pruned first, then an entry is begun, `fn` records its
 * steps ahead of each write, and the entry is marked applied. A change that fails before its first step leaves no
 * entry; one that fails after leaves it pending, and the error says how to reverse what was done. With `noJournal`,
 * `fn` gets no entry and nothing is kept.
 */
export async function runJournaled<T>(
  p: {env?: Record<string, string | undefined>; stateDir: string; action: JournalAction; command: string; summary: string; noJournal?: boolean},
  fn: (entry: JournalEntry | undefined) => Promise<T>,
): Promise<JournaledResult<T>> {
  if (p.noJournal) return {result: await fn(undefined), journal: null}
  const journal = Journal.open(p.env)
  const retention = journalRetentionMs(p.env)
  // Pruning never blocks the change: a journal that cannot be pruned now is pruned next time.
  await journal.prune(retention).catch(() => {})
  const entry = await journal.begin({stateDir: p.stateDir, action: p.action, command: p.command, summary: p.summary})
  let result: T
  try {
    result = await fn(entry)
  } catch (error) {
    const steps = await entry.steps().catch(() => [])
    if (steps.length === 0) {
      if (entry.exists) await fsp.rm(entry.dir, {recursive: true, force: true}).catch(() => {})
      throw error
    }
    const e = error as ClawkitError
    throw new ClawkitError(`${e.message ?? String(error)}`, {
      code: e.code ?? 'E_INTERNAL',
      exitCode: e.exitCode ?? ExitCode.failure,
      cause: error,
      suggestions: [...(e.suggestions ?? []), `Part of the change was made and is journaled as ${entry.id}: "clawkit undo ${entry.id}" reverses it, or run the command again to finish it.`],
    })
  }
  const steps = await entry.steps()
  if (steps.length === 0) {
    // Nothing changed (the plan was empty by the time the locks were held): no entry to undo.
    if (entry.exists) await fsp.rm(entry.dir, {recursive: true, force: true}).catch(() => {})
    return {result, journal: null}
  }
  await entry.finish('applied')
  return {result, journal: entry.meta}
}
