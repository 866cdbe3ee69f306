// A journal step for a change whose effects are only known once it has run (doctor --fix's repairs: a chmod, an index
// rebuilt from a backup, a torn line moved aside, a stale lock removed): every file of the directories it may touch
// is imaged before the change (the targets' bytes kept), recorded as an open step, and recorded again afterwards with
// what the repairs changed. Undo then moves those files back as it does any files step.
//
// Other writers work beside doctor (OpenClaw's turns append to transcripts, create new ones), and an image of a whole
// directory before and after would record their changes as doctor's, for undo to take away. So what counts as
// doctor's is what its repairs can do: any change of a target; a chmod of a file beside one (its content unchanged);
// a backup or archive named after a target (journal-files.ts isRepairProduct). A file beside the targets whose content
// changed, or that appeared under another name, is another writer's and is not recorded.
import fsp from 'node:fs/promises'
import path from 'node:path'

import {ABSENT, type FileImage, type FilesStep, type JournalEntry, killPoint, type StepFile} from './journal.js'
import {fileImage, isRepairProduct, PASSING, sameContent, SQLITE_OWN} from './journal-files.js'

/**
 * The files of `dir` doctor images: not SQLite's own (a database's rows are journaled as rows), and not another
 * process's passing files (PASSING): a lock (`sessions.json.lock`, a transcript's) and a temp file of an atomic write
 * come and go while doctor runs beside other writers; imaged, a lock released meanwhile would read as a change of
 * doctor's, and undo would put a lock back that nobody holds. They count only as a repair's own target (a stale lock
 * doctor removes).
 */
async function regularFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const d of await fsp.readdir(dir, {withFileTypes: true}).catch(() => [])) if (d.isFile() && !PASSING.test(d.name) && !SQLITE_OWN.test(d.name)) out.push(path.join(dir, d.name))
  return out
}

/** A SQLite database a repair targets (its chmod): imaged by its mode alone (journal.ts StepFile.modeOnly). */
const isDatabase = (file: string) => /\.sqlite$/.test(file)

async function modeImage(file: string): Promise<FileImage> {
  const st = await fsp.lstat(file).catch(() => undefined)
  return st?.isFile() ? {exists: true, sha256: '', size: 0, mode: st.mode & 0o7777, mtimeMs: 0} : ABSENT
}

const isEnoent = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT'

/**
 * A file's image and, for a target, its bytes kept, from one read, so that the two agree however the file changes
 * meanwhile; a file removed since it was listed is absent (other writers work beside doctor). A file beside the
 * targets is only hashed: undo gives it back its mode, never its content.
 */
async function imageOf(entry: JournalEntry, file: string, keep: boolean): Promise<FileImage> {
  let st
  try {
    st = await fsp.lstat(file)
  } catch (error) {
    if (isEnoent(error)) return ABSENT
    throw error
  }
  if (!st.isFile() || !keep) return fileImage(file).catch(() => ABSENT)
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
  // Directories (a chmod of the state dir or a sessions dir) are not files to put back; the files in them are imaged,
  // so that a repair named by its directory (chmod 600 on each transcript) is recorded as the chmods it makes.
  const isDir = async (t: string) => (await fsp.lstat(t).catch(() => undefined))?.isDirectory() ?? false
  const fileTargets: string[] = []
  const dirTargets: string[] = []
  for (const t of p.targets) (await isDir(t) ? dirTargets : fileTargets).push(t)
  p = {...p, targets: fileTargets}
  const dirs = [...new Set([...p.targets.map((t) => path.dirname(t)), ...dirTargets])]
  const before = new Map<string, FileImage>()
  const targets = new Set(p.targets)
  const databases = new Set(p.targets.filter(isDatabase))
  for (const d of dirs) for (const f of await regularFiles(d)) before.set(f, await imageOf(entry, f, targets.has(f)))
  for (const t of p.targets) if (!before.has(t)) before.set(t, databases.has(t) ? await modeImage(t) : await imageOf(entry, t, true))
  const stepFile = (f: string, b: FileImage, a: FileImage): StepFile => ({path: f, before: b, after: a, ...(databases.has(f) ? {modeOnly: true} : {})})
  const step = (await entry.record({kind: 'files', agentId: p.agentId, store: p.store, label: p.label, files: [...before].map(([f, img]) => stepFile(f, img, img)), open: true, targets: [...targets]})) as FilesStep
  return {
    async finish() {
      // The change is made and its step still open: the one point where undo has to tell doctor's changes from others'.
      killPoint(`snapshot:${step.n}`)
      const files: StepFile[] = []
      const seen = new Set<string>()
      for (const d of dirs) for (const f of await regularFiles(d)) seen.add(f)
      for (const f of new Set([...before.keys(), ...seen])) {
        const b = before.get(f) ?? ABSENT
        if (databases.has(f)) {
          const a = await modeImage(f)
          if (a.exists && b.exists && a.mode !== b.mode) files.push(stepFile(f, b, a))
          continue
        }
        // Not a target, not a product of one, and new: another writer's file, not doctor's to take back.
        if (!targets.has(f) && !b.exists && !isRepairProduct(f, targets)) continue
        const a = await fileImage(f).catch(() => ABSENT)
        const modeChanged = a.exists && b.exists && a.mode !== b.mode
        if (targets.has(f) || !b.exists) {
          if (!sameContent(a, b) || modeChanged) files.push(stepFile(f, b, a))
        } else if (sameContent(a, b) && modeChanged) {
          // Beside a target, only a chmod is doctor's (a transcript's mode); new content there is another writer's.
          files.push(stepFile(f, b, a))
        }
      }
      const done: FilesStep = {...step, files, open: undefined, targets: undefined}
      delete done.open
      delete done.targets
      await entry.rerecord(done)
      return done
    },
  }
}
