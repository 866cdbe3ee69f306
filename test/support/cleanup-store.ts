// Generated stores for `sessions cleanup`: keys of every kind OpenClaw's maintenance tells apart (ordinary, runtime,
// dashboard, protected group and main, model-run probes), each at an age, with transcripts, plus leftover files.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

export const DAY = 86_400_000

/** Keys whose fate under OpenClaw's defaults is known (30-day retention, 7-day dashboards, 5000 cap). */
export const MIXED: {key: string; ageDays: number; expect: string}[] = [
  {key: 'agent:main:main', ageDays: 100, expect: 'keep'},
  {key: 'agent:main:explicit:old', ageDays: 40, expect: 'archive-age'},
  {key: 'agent:main:explicit:new', ageDays: 2, expect: 'keep'},
  {key: 'agent:main:cron:nightly:run:r1', ageDays: 40, expect: 'prune-stale'},
  {key: 'agent:main:cron:nightly:run:r2', ageDays: 3, expect: 'keep'},
  {key: 'agent:main:subagent:helper', ageDays: 45, expect: 'prune-stale'},
  {key: 'agent:main:dashboard:board1', ageDays: 10, expect: 'archive-dashboard'},
  {key: 'agent:main:telegram:group:-100123', ageDays: 100, expect: 'keep'},
  {key: 'agent:main:hook:gmail:x', ageDays: 31, expect: 'prune-stale'},
]

export function sid(i: number): string {
  return `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
}

function setMtime(file: string, ms: number): void {
  const t = new Date(ms)
  fs.utimesSync(file, t, t)
}

/**
 * A JSON-era store of MIXED (agent main) in `state`, transcripts included, plus leftovers: an unreferenced transcript
 * 40 days old (pruned) and one a day old (kept), a stale store temp file (pruned), `extra` ordinary keys 1..n days old.
 */
export function mixedJsonStore(state: string, now: number, extra = 0, genKey: (i: number) => string = (i) => `agent:main:explicit:gen-${i}`): {dir: string} {
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  const store: Record<string, unknown> = {}
  const all = [...MIXED, ...Array.from({length: extra}, (_, i) => ({key: genKey(i), ageDays: 1 + (i % 60), expect: ''}))]
  all.forEach((k, i) => {
    const id = sid(i + 1)
    const at = now - k.ageDays * DAY
    const file = path.join(dir, `${id}.jsonl`)
    fs.writeFileSync(file, `${JSON.stringify({type: 'session', version: 3, id, timestamp: new Date(at).toISOString(), cwd: state})}\n`, {mode: 0o600})
    setMtime(file, at)
    store[k.key] = {sessionId: id, updatedAt: at, sessionStartedAt: at, sessionFile: file, ...(k.key.includes(':group:') ? {chatType: 'group'} : {})}
  })
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(store, null, 2), {mode: 0o600})
  const orphanOld = path.join(dir, `${sid(900)}.jsonl`)
  fs.writeFileSync(orphanOld, `${JSON.stringify({type: 'session', version: 3, id: sid(900), timestamp: new Date(now - 40 * DAY).toISOString(), cwd: state})}\n`)
  setMtime(orphanOld, now - 40 * DAY)
  const orphanNew = path.join(dir, `${sid(901)}.jsonl`)
  fs.writeFileSync(orphanNew, `${JSON.stringify({type: 'session', version: 3, id: sid(901), timestamp: new Date(now - DAY).toISOString(), cwd: state})}\n`)
  setMtime(orphanNew, now - DAY)
  const tmp = path.join(dir, `sessions.json.${crypto.randomUUID()}.tmp`)
  fs.writeFileSync(tmp, '{}')
  setMtime(tmp, now - 3_600_000)
  return {dir}
}

/**
 * MIXED written into a SQLite-era agent database (Node 24) the way clawkit writes a new session (a node, a window,
 * a header and one message each), each at its age, plus `extra` keys 1..60 days old (`genKey` names them, ordinary
 * keys by default), written in that order (the last ones hold the highest FTS row ids). The main key and
 * keys the fixture has already are skipped.
 */
export async function mixedSqliteStore(dbPath: string, now: number, extra = 0, genKey: (i: number) => string = (i) => `agent:main:explicit:gen-${i}`): Promise<string[]> {
  const {openAgentDb} = await import('../../src/store/sqlite/driver.js')
  const {newSession} = await import('../../src/store/sqlite/write.js')
  const h = openAgentDb(dbPath, {write: true, agentId: 'main'})
  const written: string[] = []
  try {
    const all = [...MIXED, ...Array.from({length: extra}, (_, i) => ({key: genKey(i), ageDays: 1 + (i % 60), expect: ''}))]
    for (const k of all) {
      if (h.db.prepare('SELECT 1 AS x FROM session_nodes WHERE session_key = ?').get(k.key)) continue
      const at = new Date(now - k.ageDays * DAY)
      newSession(h, {agentId: 'main', key: k.key, cwd: '/work', now: at, entry: {model: 'claude-mock', modelProvider: 'mockant', ...(k.key.includes(':group:') ? {chatType: 'group'} : {})}, items: [{type: 'message', message: {role: 'user', content: [{type: 'text', text: `hello ${k.key}`}], timestamp: at.getTime()}}] as never})
      written.push(k.key)
    }
  } finally {
    h.db.close()
  }
  return written
}

/**
 * Archive rows of a SQLite-era agent database (Node 24), made as `sessions delete` makes them but at past times (each
 * row's created_at and name carry its time; each is published as sessions/<archive_name>): `gone` deleted 50, 40 and
 * 35 days ago and never live again; `recent-gone` 2 days ago; `busy` 60, 45 and 20 days ago and live now (`busy` is
 * its live session id); `back` 50 days ago and restored (its row's session has a window again).
 */
export async function sqliteArchiveHistory(state: string, now: number): Promise<{busy: string}> {
  const {openAgentDb} = await import('../../src/store/sqlite/driver.js')
  const {newSession} = await import('../../src/store/sqlite/write.js')
  const {SqliteSessionStore} = await import('../../src/store/sqlite/store.js')
  const db = path.join(state, 'agents/main/agent/openclaw-agent.sqlite')
  const lockDir = fs.mkdtempSync(path.join(path.dirname(state), 'locks-'))
  const store = new SqliteSessionStore({agentId: 'main', path: db}, {stateDir: state, lockDir})
  const live = (key: string, at: number) => {
    const h = openAgentDb(db, {write: true, agentId: 'main'})
    try {
      return newSession(h, {agentId: 'main', key, cwd: '/work', now: new Date(at), entry: {model: 'claude-mock', modelProvider: 'mockant'}, items: [{type: 'message', message: {role: 'user', content: [{type: 'text', text: `hello ${key} at ${at}`}], timestamp: at}}] as never}).sessionId
    } finally {
      h.db.close()
    }
  }
  try {
    const deletedAt = async (key: string, days: number) => {
      live(key, now - days * DAY - 3_600_000)
      await store.lifecycle.delete(key, {now: new Date(now - days * DAY)})
    }
    for (const d of [50, 40, 35]) await deletedAt('agent:main:explicit:gone', d)
    await deletedAt('agent:main:explicit:recent-gone', 2)
    for (const d of [60, 45, 20]) await deletedAt('agent:main:explicit:busy', d)
    const busy = live('agent:main:explicit:busy', now)
    await deletedAt('agent:main:explicit:back', 50)
    await store.lifecycle.restore({key: 'agent:main:explicit:back', cwd: '/work'}, {now: new Date(now)})
    return {busy}
  } finally {
    store.close()
  }
}

/**
 * `n` ordinary SQLite-era sessions `agent:main:explicit:big-<i>` (i days old, i = 1..n) of `bytes` incompressible bytes
 * each (one user message), so that a disk budget of a few hundred KB evicts some of them and not others.
 */
export async function bigSqliteSessions(dbPath: string, now: number, n: number, bytes: number): Promise<string[]> {
  const {openAgentDb} = await import('../../src/store/sqlite/driver.js')
  const {newSession} = await import('../../src/store/sqlite/write.js')
  const h = openAgentDb(dbPath, {write: true, agentId: 'main'})
  const keys: string[] = []
  try {
    for (let i = 1; i <= n; i++) {
      const key = `agent:main:explicit:big-${i}`
      const at = new Date(now - i * DAY)
      newSession(h, {agentId: 'main', key, cwd: '/work', now: at, entry: {model: 'claude-mock', modelProvider: 'mockant'}, items: [{type: 'message', message: {role: 'user', content: [{type: 'text', text: crypto.randomBytes(bytes / 2).toString('hex')}], timestamp: at.getTime()}}] as never})
      keys.push(key)
    }
  } finally {
    h.db.close()
  }
  return keys
}

/** The disk a SQLite-era agent's store takes as OpenClaw 2026.9.6 measures it: the sessions dir, the database and its WAL. */
export function sqliteStoreBytes(state: string, agent = 'main'): number {
  const db = path.join(state, 'agents', agent, 'agent', 'openclaw-agent.sqlite')
  const dir = path.join(state, 'agents', agent, 'sessions')
  const size = (p: string) => fs.statSync(p, {throwIfNoEntry: false})?.size ?? 0
  const files = fs.existsSync(dir) ? fs.readdirSync(dir, {withFileTypes: true}).filter((d) => d.isFile()).map((d) => size(path.join(dir, d.name))) : []
  return size(db) + size(`${db}-wal`) + files.reduce((a, b) => a + b, 0)
}

/**
 * JSON-era leftovers a disk budget finds: `.deleted.` archives of `bytes` each (`n`, 1..n days old by mtime) and big
 * transcripts for the generated keys (their files grown to `bytes`).
 */
export function jsonBudgetLeftovers(dir: string, now: number, n: number, bytes: number): void {
  for (let i = 1; i <= n; i++) {
    const at = now - i * DAY
    const f = path.join(dir, `${sid(700 + i)}.jsonl.deleted.${new Date(at).toISOString().replaceAll(':', '-')}`)
    fs.writeFileSync(f, `${JSON.stringify({type: 'session', version: 3, id: sid(700 + i), timestamp: new Date(at).toISOString(), cwd: '/work'})}\n${'x'.repeat(bytes)}\n`)
    setMtime(f, at)
  }
}

/**
 * Skills prompt blobs in a sessions dir as OpenClaw 2026.9.6 keeps them (skills-prompts/sha256/<xx>/<hash>.txt): one
 * for each of `referenced` prompts and an unreferenced one, 40 days old; an unreferenced one a day old; a temp file of a
 * blob write an hour old. Returns the paths of the ones OpenClaw's cleanup prunes (the old unreferenced, the temp).
 */
export function promptBlobs(dir: string, now: number, referenced: string[]): string[] {
  const write = (hash: string, ageMs: number, suffix = '') => {
    const d = path.join(dir, 'skills-prompts', 'sha256', hash.slice(0, 2))
    fs.mkdirSync(d, {recursive: true})
    const f = path.join(d, `${hash}.txt${suffix}`)
    fs.writeFileSync(f, `prompt ${hash}${suffix}`)
    setMtime(f, now - ageMs)
    return f
  }
  for (const p of referenced) write(crypto.createHash('sha256').update(p).digest('hex'), 40 * DAY)
  const old = write('ab'.repeat(32), 40 * DAY)
  write('cd'.repeat(32), DAY)
  const tmp = write('ef'.repeat(32), 3_600_000, `.${crypto.randomUUID()}.tmp`)
  return [old, tmp]
}

/** A SQLite-era session of `key` whose transcript is its header alone (no message): 2026.9.6's --fix-missing removes it. */
export async function headerOnlySqliteSession(dbPath: string, key: string, now: number): Promise<void> {
  const {openAgentDb} = await import('../../src/store/sqlite/driver.js')
  const {newSession} = await import('../../src/store/sqlite/write.js')
  const h = openAgentDb(dbPath, {write: true, agentId: 'main'})
  try {
    newSession(h, {agentId: 'main', key, cwd: '/work', now: new Date(now - DAY), entry: {model: 'claude-mock', modelProvider: 'mockant'}, items: []})
  } finally {
    h.db.close()
  }
}
