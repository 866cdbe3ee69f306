// A journal step for a change whose effects are only known once it has run (doctor --fix's repairs: a chmod, an index
// rebuilt from a backup, a torn line moved aside, a stale lock removed): every file of the directories it may touch
// is imaged (and its bytes kept) before the change, recorded as an open step, and recorded again afterwards with only
// what changed, new files included. Undo then moves those files back as it does any files step.
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ABSENT, type FileImage, type FilesStep, type JournalEntry} from './journal.js'
import {fileImage, sameContent} from './journal-files.js'

/** Files larger than this are imaged (their hash) but their bytes kept only when they are a repair's own target. */
const KEEP_LIMIT = 64 * 1024 * 1024

/**
 * Another process's passing files: a lock (`sessions.json.lock`, a transcript's) and a temp file of an atomic write come
 * and go while doctor runs beside other writers. Imaged, a lock released meanwhile would read as a change of doctor's,
 * and undo would put a lock back that nobody holds. They count only as a repair's own target (a stale lock doctor
 * removes).
 */
const PASSING = /\.(?:lock|tmp)$/

async function regularFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const d of await fsp.readdir(dir, {withFileTypes: true}).catch(() => [])) if (d.isFile() && !PASSING.test(d.name)) out.push(path.join(dir, d.name))
  return out
}

const isEnoent = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT'

/**
 * A file's image and, where it is kept, its bytes, from one read, so that the two agree however the file changes
 * meanwhile; a file removed since it was listed is absent (other writers work beside doctor).
 */
async function imageOf(entry: JournalEntry, file: string, keep: boolean): Promise<FileImage> {
  let st
  try {
    st = await fsp.lstat(file)
  } catch (error) {
    if (isEnoent(error)) return ABSENT
    throw error
  }
  if (!st.isFile() || (st.size > KEEP_LIMIT && !keep)) return fileImage(file).catch(() => ABSENT)
  let bytes: Buffer
  try {
    bytes = await fsp.readFile(file)
  } catch (error) {
    if (isEnoent(error)) return ABSENT
    throw error
  }
  const sha256 = await entry.putBlob(bytes)
  return {exists: true, sha256, size: bytes.length, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs}
}

export interface Snapshot {
  /** Record the step again with what the change did (after images of the paths that changed, files it created). */
  finish(): Promise<FilesStep>
}

/** Image `targets` and every file beside them, keep their bytes, and record an open step (before the change). */
export async function snapshotFiles(entry: JournalEntry, p: {agentId: string; store: string; label: string; targets: string[]}): Promise<Snapshot> {
  // Directories (a chmod of the state dir or a sessions dir) are not files to put back: their files beside are.
  const isDir = async (t: string) => (await fsp.lstat(t).catch(() => undefined))?.isDirectory() ?? false
  const fileTargets: string[] = []
  for (const t of p.targets) if (!(await isDir(t))) fileTargets.push(t)
  p = {...p, targets: fileTargets}
  const dirs = [...new Set(p.targets.map((t) => path.dirname(t)))]
  const before = new Map<string, FileImage>()
  const targets = new Set(p.targets)
  for (const d of dirs) for (const f of await regularFiles(d)) before.set(f, await imageOf(entry, f, targets.has(f)))
  for (const t of p.targets) if (!before.has(t)) before.set(t, await imageOf(entry, t, true))
  const step = (await entry.record({kind: 'files', agentId: p.agentId, store: p.store, label: p.label, files: [...before].map(([f, img]) => ({path: f, before: img, after: img})), open: true})) as FilesStep
  return {
    async finish() {
      const files: FilesStep['files'] = []
      const seen = new Set<string>()
      for (const d of dirs) for (const f of await regularFiles(d)) seen.add(f)
      for (const f of new Set([...before.keys(), ...seen])) {
        const b = before.get(f) ?? ABSENT
        const a = await fileImage(f).catch(() => ABSENT)
        const modeChanged = a.exists && b.exists && a.mode !== b.mode
        if (!sameContent(a, b) || modeChanged) files.push({path: f, before: b, after: a})
      }
      const done: FilesStep = {...step, files, open: undefined}
      delete done.open
      await entry.rerecord(done)
      return done
    },
  }
}
