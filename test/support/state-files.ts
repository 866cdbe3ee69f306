// Test support: a state dir read straight from its files, with no clawkit code: snapshots of a tree (to prove what a
// command did and did not touch), a store's sessions.json, and a transcript's lines.
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import type {SessionStoreData} from '../../src/store/types.js'
import {readIndexFile, sessionsJsonPath} from './cli.js'

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

/** An agent's sessions.json as it is on disk. */
export function readIndex(state: string, agent = 'main'): SessionStoreData {
  return readIndexFile(sessionsJsonPath(state, agent))
}

/** Every non-blank line of a transcript, parsed (a torn line throws: use scanJsonl where one may be expected). */
export function transcriptLines(file: string): any[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
}

/** The transcript of `key`'s row, in the agent's sessions dir: its sessionFile's name there, else `<sessionId>.jsonl`. */
export function transcriptOfKey(state: string, key: string, agent = 'main'): string {
  const entry = readIndex(state, agent)[key]
  if (!entry) throw new Error(`no row ${key} in ${sessionsJsonPath(state, agent)}`)
  const name = typeof entry.sessionFile === 'string' ? path.basename(entry.sessionFile) : `${entry.sessionId}.jsonl`
  return path.join(path.dirname(sessionsJsonPath(state, agent)), name)
}

/** The lines of `key`'s transcript (see transcriptOfKey). */
export function keyTranscriptLines(state: string, key: string, agent = 'main'): any[] {
  return transcriptLines(transcriptOfKey(state, key, agent))
}
