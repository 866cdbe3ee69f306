// The JSON layout's part of the journal (../journal.ts): a sessions.json rewrite recorded ahead of itself (the file's
// bytes before, the keys that change), and its replay in either direction: byte for byte when nobody rewrote the
// index since, else key by key into the index as it is now, refused for a key that changed since.
import fsp from 'node:fs/promises'

import {ClawkitError, ExitCode} from '../../errors.js'
import {readRegularFile} from '../../os/safe-open.js'
import {isEnoent, writeFileAtomic} from '../fs-util.js'
import {emptyStoreData} from '../index-data.js'
import {ABSENT, type FileImage, hashBytes, type IndexChange, type IndexStep, type JournalEntry} from '../journal.js'
import {withLock} from '../lock.js'
import type {SessionStoreData} from '../types.js'
import {parseStoreText, serializeStore, STORE_FILE} from './index-text.js'

/** The index's bytes now (undefined: no index). */
async function readIndexBytes(file: string): Promise<Buffer | undefined> {
  try {
    return await readRegularFile(file, STORE_FILE)
  } catch (error) {
    if (isEnoent(error)) return undefined
    throw error
  }
}

async function imageOf(file: string, bytes: Buffer | undefined): Promise<FileImage> {
  if (!bytes) return ABSENT
  const st = await fsp.stat(file)
  return {exists: true, sha256: hashBytes(bytes), size: bytes.length, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs}
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The keys whose entry differs between two indexes, with each removed key's place in the old order. */
export function indexChanges(before: SessionStoreData, after: SessionStoreData): IndexChange[] {
  const out: IndexChange[] = []
  const keys = Object.keys(before)
  keys.forEach((key, position) => {
    if (!(key in after)) out.push({key, before: before[key] as Record<string, unknown>, position})
    else if (!same(before[key], after[key])) out.push({key, before: before[key] as Record<string, unknown>, after: after[key] as Record<string, unknown>, position})
  })
  for (const key of Object.keys(after)) if (!(key in before)) out.push({key, after: after[key] as Record<string, unknown>})
  return out
}

/**
 * One journaled rewrite of sessions.json, under its lock (the caller's order: transcript locks first): `mutator` sees
 * the index as it is inside the lock; when it changes anything, the step (the old bytes as a blob, the changed keys,
 * the hash of the new text) is recorded and synced, then the new index is written atomically. Without an entry it is
 * a plain locked rewrite.
 */
export async function journaledIndexUpdate<T>(p: {file: string; agentId: string; label: string; entry?: JournalEntry; lockTimeoutMs?: number}, mutator: (data: SessionStoreData) => T | Promise<T>): Promise<T> {
  return withLock(
    p.file,
    async () => {
      const bytes = await readIndexBytes(p.file)
      const data = bytes ? parseStoreText(bytes.toString('utf8'), p.file) : emptyStoreData()
      const before = bytes ? parseStoreText(bytes.toString('utf8'), p.file) : emptyStoreData()
      const result = await mutator(data)
      const next = serializeStore(data, p.file)
      if (bytes && next === stripBomText(bytes)) return result
      if (p.entry) {
        const beforeImage = await imageOf(p.file, bytes)
        if (bytes) await p.entry.putBlob(bytes)
        const afterImage: FileImage = {exists: true, sha256: hashBytes(next), size: Buffer.byteLength(next), mode: 0o600, mtimeMs: Date.now()}
        const step = await p.entry.record({kind: 'index', agentId: p.agentId, store: p.file, label: p.label, path: p.file, before: beforeImage, after: afterImage, changes: indexChanges(before, data)})
        await writeFileAtomic(p.file, next)
        // The after image's mtime is the written file's (a redo sets it back).
        const st = await fsp.stat(p.file).catch(() => undefined)
        if (st && step.kind === 'index' && step.after.exists) await p.entry.rerecord({...step, after: {...step.after, mtimeMs: st.mtimeMs}})
      } else {
        await writeFileAtomic(p.file, next)
      }
      return result
    },
    {timeoutMs: p.lockTimeoutMs},
  )
}

function stripBomText(bytes: Buffer): string {
  const t = bytes.toString('utf8')
  return t.charCodeAt(0) === 0xfeff ? t.slice(1) : t
}

/** A key whose entry is now in neither image of a step: the store moved on. */
export interface IndexConflict {
  key: string
  reason: string
}

function describeEntry(e: Record<string, unknown> | undefined): string {
  return e ? `session ${String(e.sessionId)}` : 'no entry'
}

/** What an index replay to `to` would refuse: keys changed since the step, each said in words. */
export async function indexConflicts(step: IndexStep, to: 'before' | 'after'): Promise<IndexConflict[]> {
  const bytes = await readIndexBytes(step.path)
  const sha = bytes ? hashBytes(bytes) : undefined
  const target = to === 'before' ? step.before : step.after
  const other = to === 'before' ? step.after : step.before
  if ((target.exists ? target.sha256 : undefined) === sha || (other.exists ? other.sha256 : undefined) === sha) return []
  const data = bytes ? parseStoreText(bytes.toString('utf8'), step.path) : emptyStoreData()
  const out: IndexConflict[] = []
  for (const c of step.changes) {
    const want = to === 'before' ? c.before : c.after
    const leaving = to === 'before' ? c.after : c.before
    const now = c.key in data ? (data[c.key] as Record<string, unknown>) : undefined
    if (same(now, want) || same(now, leaving)) continue
    out.push({key: c.key, reason: `${c.key} changed since (it holds ${describeEntry(now)}, where the journal has ${describeEntry(leaving)})`})
  }
  return out
}

/**
 * Move sessions.json to the step's `to` image under its lock: the recorded bytes when the file is exactly the other
 * image (undo is then byte for byte), else each changed key set to its `to` entry in the index as it is now, a
 * removed key put back at its old place. Refuses (nothing written) when a changed key is in neither image.
 */
export async function replayIndex(step: IndexStep, to: 'before' | 'after', source: JournalEntry, keep: JournalEntry | undefined): Promise<void> {
  await withLock(step.path, async () => {
    const conflicts = await indexConflicts(step, to)
    if (conflicts.length > 0) throw new ClawkitError(`Cannot undo: ${conflicts.map((c) => c.reason).join('; ')}. Nothing was changed.`, {code: 'E_UNDO_CONFLICT', exitCode: ExitCode.failure})
    const bytes = await readIndexBytes(step.path)
    const sha = bytes ? hashBytes(bytes) : undefined
    const target = to === 'before' ? step.before : step.after
    const other = to === 'before' ? step.after : step.before
    if ((target.exists ? target.sha256 : undefined) === sha) return
    if (other.exists && other.sha256 === sha && target.exists) {
      const blob = await source.findBlob(target.sha256)
      if (blob) {
        await writeFileAtomic(step.path, await fsp.readFile(blob), target.mode)
        const t = new Date(target.mtimeMs)
        await fsp.utimes(step.path, t, t)
        return
      }
    }
    if (!target.exists) {
      // The index did not exist in the target image: only an index that holds nothing else may go.
      const data = bytes ? parseStoreText(bytes.toString('utf8'), step.path) : emptyStoreData()
      const leftover = Object.keys(data).filter((k) => !step.changes.some((c) => c.key === k))
      if (leftover.length === 0) {
        if (keep) await keep.takeFile(step.path, sha!)
        else await fsp.rm(step.path, {force: true})
        return
      }
    }
    const data = bytes ? parseStoreText(bytes.toString('utf8'), step.path) : emptyStoreData()
    const keys = Object.keys(data)
    for (const c of step.changes) {
      const want = to === 'before' ? c.before : c.after
      if (want === undefined) {
        const i = keys.indexOf(c.key)
        if (i >= 0) keys.splice(i, 1)
      } else if (!keys.includes(c.key)) {
        keys.splice(Math.min(to === 'before' && c.position !== undefined ? c.position : keys.length, keys.length), 0, c.key)
      }
    }
    const out = emptyStoreData()
    for (const k of keys) {
      const c = step.changes.find((x) => x.key === k)
      const v = c ? (to === 'before' ? c.before : c.after) : data[k]
      if (v !== undefined) (out as Record<string, unknown>)[k] = v
    }
    await writeFileAtomic(step.path, serializeStore(out, step.path))
  })
}
