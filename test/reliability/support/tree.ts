// Snapshots of directory trees (hash, mode, kind per path) to prove what a command did and did not touch.
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

export interface NodeInfo {
  kind: 'file' | 'dir' | 'symlink' | 'other'
  mode: number
  sha?: string
  target?: string
}

export type Snapshot = Map<string, NodeInfo>

/** Every path under root (root itself as ''), without following symlinks. */
export function snapshot(root: string): Snapshot {
  const out: Snapshot = new Map()
  const walk = (rel: string) => {
    const abs = path.join(root, rel)
    let st: fs.Stats
    try {
      st = fs.lstatSync(abs)
    } catch {
      return
    }
    const mode = st.mode & 0o777
    if (st.isSymbolicLink()) out.set(rel, {kind: 'symlink', mode, target: fs.readlinkSync(abs)})
    else if (st.isDirectory()) {
      out.set(rel, {kind: 'dir', mode})
      for (const name of fs.readdirSync(abs).sort()) walk(rel ? path.join(rel, name) : name)
    } else if (st.isFile()) out.set(rel, {kind: 'file', mode, sha: createHash('sha256').update(fs.readFileSync(abs)).digest('hex')})
    else out.set(rel, {kind: 'other', mode})
  }
  walk('')
  return out
}

export interface SnapshotDiff {
  added: string[]
  removed: string[]
  changed: string[]
}

export function diffSnapshots(before: Snapshot, after: Snapshot): SnapshotDiff {
  const added = [...after.keys()].filter((k) => !before.has(k))
  const removed = [...before.keys()].filter((k) => !after.has(k))
  const changed = [...after.keys()].filter((k) => {
    const a = before.get(k)
    const b = after.get(k)!
    return a !== undefined && (a.kind !== b.kind || a.sha !== b.sha || a.target !== b.target || (a.kind !== 'dir' && a.mode !== b.mode))
  })
  return {added, removed, changed}
}

export function isEmptyDiff(d: SnapshotDiff): boolean {
  return d.added.length === 0 && d.removed.length === 0 && d.changed.length === 0
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}
