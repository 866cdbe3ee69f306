// SessionStore.listingToken of the JSON layout: a token of everything allSessions() reads but the transcripts' own
// bytes, so that a reader that kept its answer (the local catalog) can tell, with a few stats, that it still holds.
import fs from 'node:fs'
import path from 'node:path'

import {sha256} from '../../util/hash.js'
import type {SessionEntry} from '../types.js'

interface Token {
  v: 2
  /** sessions.json as stat saw it: inode, size, mtime, ctime ('-' when missing). */
  index: string
  /** sha256 of what lineage reads of each entry (lineage.ts indexFacts), in index order. */
  digest: string
  /** The sessions dir's real path: a link moved to another dir lists other files. */
  real: string
  /**
   * Each directory transcripts are listed from: its stat (the shortcut: unchanged, its names are too) and a hash of the
   * names of its transcripts, archives and sidecars. The stat alone would move on every turn: OpenClaw writes
   * sessions.json to a temp file and renames it into place, in that same directory.
   */
  dirs: [string, string, string][]
}

/** Names allSessions() lists a transcript, archive or sidecar by (`*.jsonl`, `*.jsonl.reset.*`, `*.jsonl.deleted.*`). */
const listed = (name: string) => name.endsWith('.jsonl') || name.includes('.jsonl.')

function namesHash(dir: string): string {
  let names: string[]
  try {
    names = fs.readdirSync(dir).filter(listed).sort()
  } catch {
    return '-'
  }
  return sha256().update(names.join('\n')).digest('hex')
}

const statSig = (p: string): string => {
  try {
    const st = fs.statSync(p)
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
  } catch {
    return '-'
  }
}

const realOr = (p: string): string => {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return p
  }
}

/**
 * The token of one JSON-layout store. Of the index, only what lineage reads counts (key, sessionId, sessionFile,
 * sessionStartedAt, previousSessionId, in order): an entry's updatedAt or token counts changing on every turn does not
 * change the listing. The index is read again only when its stat moved; the directories are stat'ed every time.
 * Not covered, because OpenClaw never does it: a trajectory sidecar whose first event is rewritten in place.
 */
export async function fileListingToken(
  store: {indexFile: string; sessionsDir: string; readRows: <T>(project: (key: string, entry: SessionEntry) => T, opts?: {omit?: readonly string[]}) => Promise<Map<string, T>>},
  prev?: string,
): Promise<{token: string; changed: boolean}> {
  const index = statSig(store.indexFile)
  let old: Token | undefined
  try {
    old = prev ? (JSON.parse(prev) as Token) : undefined
  } catch {}
  const dir = path.resolve(store.sessionsDir)
  let digest: string
  let dirs: string[]
  if (old && old.v === 2 && old.index === index && index !== '-') {
    digest = old.digest
    dirs = old.dirs.map(([d]) => d)
  } else {
    const rows = await store.readRows(
      (key, e) => [key, e.sessionId, e.sessionFile, e.sessionStartedAt, e.previousSessionId] as const,
      {omit: ['skillsSnapshot', 'systemPromptReport']},
    )
    const h = sha256()
    const set = new Set([dir])
    for (const r of rows.values()) {
      h.update(JSON.stringify(r) ?? '')
      h.update('\n')
      const stored = typeof r[2] === 'string' ? r[2].trim() : ''
      if (stored && !stored.includes('\0') && stored.length < 4096) set.add(path.dirname(path.isAbsolute(stored) ? path.normalize(stored) : path.resolve(dir, stored)))
    }
    digest = h.digest('hex')
    dirs = [...set]
  }
  const was = new Map((old?.v === 2 ? old.dirs : []).map(([d, sig, names]) => [d, {sig, names}]))
  const token: Token = {
    v: 2,
    index,
    digest,
    real: realOr(dir),
    dirs: dirs.map((d) => {
      const sig = statSig(d)
      const before = was.get(d)
      return [d, sig, before && before.sig === sig && sig !== '-' ? before.names : namesHash(d)]
    }),
  }
  // The index's and the directories' own stats are only shortcuts: an index rewritten for updatedAt, or a temp file
  // renamed in beside the transcripts, lists the same.
  const changed = !old || old.v !== 2 || old.digest !== token.digest || old.real !== token.real || JSON.stringify(old.dirs.map(([d, , n]) => [d, n])) !== JSON.stringify(token.dirs.map(([d, , n]) => [d, n]))
  return {token: JSON.stringify(token), changed}
}
