// SessionStore.listingToken of the JSON layout: a token of everything allSessions() reads but the transcripts' own
// bytes, so that a reader that kept its answer (the local catalog) can tell, with a few stats, that it still holds.
import fs from 'node:fs'
import path from 'node:path'

import {sha256} from '../util/hash.js'
import type {SessionEntry} from './types.js'

interface Token {
  v: 1
  /** sessions.json as stat saw it: inode, size, mtime, ctime ('-' when missing). */
  index: string
  /** sha256 of what lineage reads of each entry (lineage.ts indexFacts), in index order. */
  digest: string
  /** The sessions dir's real path: a link moved to another dir lists other files. */
  real: string
  /** Each directory transcripts are listed from, and its stat: a file created, renamed or removed there changes it. */
  dirs: [string, string][]
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
): Promise<string> {
  const index = statSig(store.indexFile)
  let old: Token | undefined
  try {
    old = prev ? (JSON.parse(prev) as Token) : undefined
  } catch {}
  const dir = path.resolve(store.sessionsDir)
  let digest: string
  let dirs: string[]
  if (old && old.v === 1 && old.index === index && index !== '-') {
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
  const token: Token = {v: 1, index, digest, real: realOr(dir), dirs: dirs.map((d) => [d, statSig(d)])}
  return JSON.stringify(token)
}
