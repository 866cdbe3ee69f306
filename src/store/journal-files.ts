// Files in a journal step (journal.ts): what a file is now as an image, and moving a set of files from one image to
// another (a forward change or its undo) with every move atomic and every removed byte kept in the journal first.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ClawkitError, ExitCode} from '../errors.js'
import {ensurePrivateDir, fsyncDir, isEnoent} from './fs-util.js'
import {ABSENT, type FileImage, type FilesStep, hashFile, type JournalEntry, killPoint} from './journal.js'
import {withLock} from './lock.js'
import {randomUUID} from './random-id.js'

/** The image of one path now: absent, or a regular file's hash, size, mode and mtime. A link or a directory throws. */
export async function fileImage(file: string): Promise<FileImage> {
  let st: fs.Stats
  try {
    st = await fsp.lstat(file)
  } catch (error) {
    if (isEnoent(error)) return ABSENT
    throw error
  }
  if (!st.isFile()) throw new Error(`${file} is not a regular file (a link, a directory or a device); clawkit does not move it`)
  const {sha256, size} = await hashFile(file)
  return {exists: true, sha256, size, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs}
}

/** Whether two images describe the same content (mode and mtime are restored, not compared: chmod is no conflict). */
export function sameContent(a: FileImage, b: FileImage): boolean {
  return a.exists === b.exists && (!a.exists || (b.exists && a.sha256 === b.sha256))
}

export interface FileMove {
  path: string
  from: FileImage
  to: FileImage
  /** Only the mode moves (a SQLite database a repair chmodded: journal.ts StepFile). */
  modeOnly?: boolean
}

/** A path's mode now (undefined: absent or not a regular file), without reading its content. */
async function modeNow(file: string): Promise<number | undefined> {
  const st = await fsp.lstat(file).catch(() => undefined)
  return st?.isFile() ? st.mode & 0o7777 : undefined
}

/** One path that is in neither image: the store moved on, and what it holds now. */
export interface FileConflict {
  path: string
  now: FileImage
  want: FileImage
}

/**
 * Which of `moves` are neither in their `from` nor already in their `to` image (the caller refuses on any). A path
 * already in its `to` image is a move a crash left done.
 */
export async function fileConflicts(moves: readonly FileMove[]): Promise<FileConflict[]> {
  const out: FileConflict[] = []
  for (const m of moves) {
    if (m.modeOnly) {
      // Its content is other writers' to change (a database); only a file that is gone cannot get its mode back.
      if ((await modeNow(m.path)) === undefined) out.push({path: m.path, now: ABSENT, want: m.to})
      continue
    }
    const now = await fileImage(m.path).catch(() => undefined)
    if (!now) {
      out.push({path: m.path, now: ABSENT, want: m.to})
      continue
    }
    if (!sameContent(now, m.from) && !sameContent(now, m.to)) out.push({path: m.path, now, want: m.to})
  }
  return out
}

async function setMeta(file: string, img: FileImage): Promise<void> {
  if (!img.exists) return
  await fsp.chmod(file, img.mode)
  const t = new Date(img.mtimeMs)
  await fsp.utimes(file, t, t)
}

/**
 * Move every path from its `from` to its `to` image (the caller checked fileConflicts and holds the locks). Content
 * that leaves a path goes to another path of the set that wants it (a rename: `x.jsonl` to `x.jsonl.deleted.<ts>`) or
 * into `entry`'s blobs; content a path needs comes from such a rename or from a copy of a blob (this entry's or one of
 * the entries it undoes). With no entry (`--no-journal`), content that leaves the store is removed. Mode and mtime are set back with
 * the content: OpenClaw ages archives and artifacts by them. Paths already in their `to` image are left alone.
 */
export async function applyFileMoves(all: readonly FileMove[], entry: JournalEntry | undefined, source: JournalEntry | undefined = entry): Promise<void> {
  for (const m of all) {
    if (!m.modeOnly || !m.to.exists) continue
    const mode = await modeNow(m.path)
    if (mode !== undefined && mode !== m.to.mode) await fsp.chmod(m.path, m.to.mode)
  }
  const moves = all.filter((m) => !m.modeOnly)
  const state = new Map<string, FileImage>()
  for (const m of moves) state.set(m.path, await fileImage(m.path))
  const pending = moves.filter((m) => !sameContent(state.get(m.path)!, m.to))
  // Renames first: content that only changes its name never leaves the state dir (an archive of a transcript). Their
  // directories are synced once all are done (one sync per file was most of undoing a large cleanup); a crash before
  // leaves each path in its from or its to image, which a replay takes either way.
  const renamed = new Set<string>()
  let renames = 0
  for (const m of pending) {
    if (!m.to.exists) continue
    if (sameContent(state.get(m.path)!, m.to)) continue
    const source = pending.find((s) => s !== m && s.path !== m.path && sameContent(state.get(s.path)!, m.to) && !sameContent(s.to, m.to))
    if (!source || state.get(m.path)!.exists) continue
    await ensurePrivateDir(path.dirname(m.path))
    await fsp.rename(source.path, m.path)
    renamed.add(path.dirname(m.path)).add(path.dirname(source.path))
    await setMeta(m.path, m.to)
    state.set(m.path, m.to)
    state.set(source.path, ABSENT)
    killPoint(`renamed:${++renames}`)
  }
  for (const dir of renamed) await fsyncDir(dir)
  // Then content leaving a path: kept in the journal before the path changes.
  for (const m of pending) {
    const now = state.get(m.path)!
    if (!now.exists || sameContent(now, m.to)) continue
    if (entry) await entry.takeFile(m.path, now.sha256)
    else await fsp.rm(m.path, {force: true})
    state.set(m.path, ABSENT)
  }
  // Last, content a path needs from the journal: written beside it and renamed into place.
  for (const m of pending) {
    if (!m.to.exists || sameContent(state.get(m.path)!, m.to)) continue
    const blob = source ? await source.findBlob(m.to.sha256) : undefined
    if (!blob) throw new Error(`the journal no longer holds the bytes of ${m.path} (${m.to.sha256.slice(0, 12)})`)
    await ensurePrivateDir(path.dirname(m.path))
    const tmp = `${m.path}.${randomUUID()}.tmp`
    try {
      // Copied, not moved: the journal keeps the bytes, so this move can itself be undone (the undo is journaled).
      await fsp.copyFile(blob, tmp)
      const fh = await fsp.open(tmp, 'r+')
      await fh.sync()
      await fh.close()
      await setMeta(tmp, m.to)
      await fsp.rename(tmp, m.path)
      await fsyncDir(path.dirname(m.path))
    } finally {
      await fsp.rm(tmp, {force: true}).catch(() => {})
    }
    state.set(m.path, m.to)
  }
  // A path whose content is right but whose mode is not (doctor's chmod): the mode goes back too.
  for (const m of moves) {
    if (!m.to.exists) continue
    const now = await fileImage(m.path).catch(() => undefined)
    if (now?.exists && sameContent(now, m.to) && now.mode !== m.to.mode) await fsp.chmod(m.path, m.to.mode)
  }
}

/** A files step's moves toward `to` (the image it goes back to on undo, `before`; or forward again, `after`). */
export function movesOf(step: FilesStep, to: 'before' | 'after'): FileMove[] {
  return step.files.map((f) => ({...(to === 'before' ? {path: f.path, from: f.after, to: f.before} : {path: f.path, from: f.before, to: f.after}), ...(f.modeOnly ? {modeOnly: true} : {})}))
}

/** Another process's passing files (a lock, an atomic write's temp file): never a repair's product. */
export const PASSING = /\.(?:lock|tmp)$/
/** SQLite's own files and the online backups doctor journals in their own step (diagnostics/sqlite/repairs.ts). */
export const SQLITE_OWN = /\.sqlite(?:-wal|-shm|-journal|\.bak\.\d+)?$/

/**
 * Whether `file` is what a repair of one of `targets` leaves beside it: a backup or an archive named after the target
 * (`sessions.json.bak.<ms>`, `<transcript>.bak.<ts>`, `<orphan>.deleted.<ts>`, diagnostics/file/repairs.ts). Doctor
 * writes no other file; anything else that appears meanwhile is another writer's.
 */
export function isRepairProduct(file: string, targets: Iterable<string>): boolean {
  const name = path.basename(file)
  if (PASSING.test(name) || SQLITE_OWN.test(name)) return false
  for (const t of targets) {
    if (path.dirname(t) !== path.dirname(file)) continue
    const base = path.basename(t)
    if (name.startsWith(`${base}.bak.`) || name.startsWith(`${base}.deleted.`)) return true
  }
  return false
}

/**
 * The moves that undo an open snapshot (its change was interrupted before its after images were recorded): targets
 * back to their before images, whatever they hold; other paths their mode back only where their content is still the
 * imaged one (a chmod of doctor's; new content is another writer's and stays); files a target's repair made beside it
 * taken away. A step without `targets` (written before they were recorded) treats every path as one.
 */
export async function openSnapshotMoves(step: FilesStep): Promise<FileMove[]> {
  const targets = step.targets ? new Set(step.targets) : undefined
  const out: FileMove[] = []
  const listed = new Set(step.files.map((f) => f.path))
  for (const f of step.files) {
    if (!targets || targets.has(f.path)) {
      out.push({path: f.path, from: f.after, to: f.before, ...(f.modeOnly ? {modeOnly: true} : {})})
      continue
    }
    const now = await fileImage(f.path).catch(() => undefined)
    if (now && sameContent(now, f.before)) out.push({path: f.path, from: now, to: f.before})
  }
  for (const dir of new Set([...(targets ?? [])].map((t) => path.dirname(t)))) {
    for (const d of await fsp.readdir(dir, {withFileTypes: true}).catch(() => [])) {
      const file = path.join(dir, d.name)
      if (!d.isFile() || listed.has(file) || !isRepairProduct(file, targets!)) continue
      out.push({path: file, from: await fileImage(file), to: ABSENT})
    }
  }
  return out
}

/** Why replaying a files step to `to` would be refused now, one line per path that is in neither image. */
export async function filesStepConflicts(step: FilesStep, to: 'before' | 'after'): Promise<string[]> {
  // An open snapshot (its change interrupted before its after images were known) goes back whatever its targets hold.
  if (step.open) return []
  return (await fileConflicts(movesOf(step, to))).map((c) => `${step.label}: ${c.path} ${c.now.exists ? 'holds other content now' : 'is gone'} (the journal has ${c.want.exists ? 'its content' : 'it absent'})`)
}

/** Replay a files step to `to` under its transcripts' locks (OpenClaw's protocol), refused when a path is in neither image. */
export async function replayFilesStep(step: FilesStep, to: 'before' | 'after', source: JournalEntry, keep: JournalEntry | undefined): Promise<void> {
  const run = async () => {
    const conflicts = await filesStepConflicts(step, to)
    if (conflicts.length > 0) throw new ClawkitError(`Cannot undo: ${conflicts.join('; ')}. Nothing was changed.`, {code: 'E_UNDO_CONFLICT', exitCode: ExitCode.failure})
    await applyFileMoves(step.open && to === 'before' ? await openSnapshotMoves(step) : movesOf(step, to), keep, source)
  }
  const locks = [...new Set(step.locks ?? [])].sort()
  const next = (i: number): Promise<void> => (i >= locks.length ? run() : withLock(locks[i], () => next(i + 1)))
  await next(0)
}
