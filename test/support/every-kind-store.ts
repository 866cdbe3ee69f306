// Generated stores of every session kind OpenClaw's maintenance tells apart, at scale (10 000 sessions), for the
// cleanup plan-equality trials against real OpenClaw: keys of each kind in turn, ages spread over 0-89 days (about
// 70% newer than the 30-day retention, so the unarchived rest overflows both releases' caps), each at its own second of
// its day and never within hours of a day boundary, so two tools planning seconds apart see the same ages and the cap's
// "oldest first" has no ties. JSON era (sessions.json and JSONL transcripts) and SQLite era (rows in one transaction).
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

export const DAY = 86_400_000

/** The kinds, in the order keys take them (key i is KINDS[i % KINDS.length]). */
export const KINDS = ['explicit', 'direct', 'group', 'cron', 'subagent', 'acp', 'hook', 'heartbeat', 'dashboard', 'node', 'thread', 'pinned', 'locked', 'model-run'] as const
export type Kind = (typeof KINDS)[number]

export interface GeneratedKey {
  key: string
  kind: Kind
  /** The session's activity time (updatedAt, sessionStartedAt, lastInteractionAt, lastActivityAt). */
  at: number
  /** Entry fields of its kind (chatType, pinnedAt, modelSelectionLocked). */
  extra: Record<string, unknown>
}

function uuidOf(n: number): string {
  const h = crypto.createHash('sha256').update(String(n)).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** Key i: its kind, its key and its age (days 0-89, ~70% under 30; then 12 h plus 3 s per key into the day). */
export function generatedKey(i: number, now: number): GeneratedKey {
  const kind = KINDS[i % KINDS.length]
  const r = (i * 7919) % 100
  const days = r < 70 ? r % 30 : 30 + (r % 60)
  const at = now - days * DAY - 12 * 3_600_000 - i * 3000
  const keys: Record<Kind, string> = {
    explicit: `agent:main:explicit:e${i}`,
    direct: `agent:main:telegram:direct:${i}`,
    group: `agent:main:telegram:group:-100${i}`,
    cron: `agent:main:cron:job${i % 7}:run:r${i}`,
    subagent: `agent:main:subagent:s${i}`,
    acp: `agent:main:acp:a${i}`,
    hook: `agent:main:hook:gmail:h${i}`,
    heartbeat: `agent:main:hb${i}:heartbeat`,
    dashboard: `agent:main:dashboard:d${i}`,
    node: `agent:main:node:n${i}`,
    thread: `agent:main:explicit:t${i}:thread:${i}`,
    pinned: `agent:main:explicit:p${i}`,
    locked: `agent:main:explicit:l${i}`,
    'model-run': `agent:main:explicit:model-run-${uuidOf(i)}`,
  }
  const extra: Record<string, unknown> = kind === 'group' ? {chatType: 'group'} : kind === 'direct' ? {chatType: 'direct'} : kind === 'pinned' ? {pinnedAt: at} : kind === 'locked' ? {modelSelectionLocked: true} : {}
  return {key: keys[kind], kind, at, extra}
}

function setMtime(file: string, ms: number): void {
  const t = new Date(ms)
  fs.utimesSync(file, t, t)
}

/** Leftover transcripts no entry names: two 40 days old (a transcript and a trajectory: OpenClaw 2026.9.6 prunes them), one a day old (kept). */
function leftovers(dir: string, now: number): void {
  for (const [name, age] of [[`${uuidOf(-1)}.jsonl`, 40], [`${uuidOf(-2)}.trajectory.jsonl`, 40], [`${uuidOf(-3)}.jsonl`, 1]] as const) {
    const file = path.join(dir, name)
    fs.writeFileSync(file, `${JSON.stringify({type: 'session', version: 3, id: uuidOf(-9), timestamp: new Date(now - age * DAY).toISOString(), cwd: '/work'})}\n`)
    setMtime(file, now - age * DAY)
  }
}

/**
 * A JSON-era store of `total` sessions (agent main: agent:main:main and total - 1 generated keys) in `state`, each
 * with a transcript of a user message ("hello <key>") and the assistant's reply, plus leftovers.
 */
export function everyKindJsonStore(state: string, now: number, total: number): GeneratedKey[] {
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  const store: Record<string, unknown> = {}
  const keys: GeneratedKey[] = [{key: 'agent:main:main', kind: 'explicit', at: now - 100 * DAY - 12 * 3_600_000, extra: {}}, ...Array.from({length: total - 1}, (_, i) => generatedKey(i, now))]
  for (const [n, k] of keys.entries()) {
    const id = uuidOf(100_000 + n)
    const file = path.join(dir, `${id}.jsonl`)
    const ts = new Date(k.at).toISOString()
    const user = {type: 'message', id: crypto.randomBytes(4).toString('hex'), parentId: null, timestamp: ts, message: {role: 'user', content: [{type: 'text', text: `hello ${k.key}`}], timestamp: k.at}}
    const usage = {input: 10, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 12, cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}}
    const reply = {type: 'message', id: crypto.randomBytes(4).toString('hex'), parentId: user.id, timestamp: ts, message: {role: 'assistant', content: [{type: 'text', text: `reply ${k.key}`}], api: 'anthropic-messages', provider: 'mockant', model: 'claude-mock', usage, stopReason: 'stop', timestamp: k.at}}
    fs.writeFileSync(file, [{type: 'session', version: 3, id, timestamp: ts, cwd: '/work'}, user, reply].map((e) => JSON.stringify(e)).join('\n') + '\n', {mode: 0o600})
    setMtime(file, k.at)
    store[k.key] = {sessionId: id, updatedAt: k.at, sessionStartedAt: k.at, sessionFile: file, modelProvider: 'mockant', model: 'claude-mock', ...k.extra}
  }
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(store, null, 2), {mode: 0o600})
  leftovers(dir, now)
  return keys
}

/**
 * Generated keys written into a SQLite-era agent database (Node 24) until it holds `total` sessions, as clawkit's
 * newSession writes one (a node, a window, a header and a user message "hello <key>"), all in one BEGIN IMMEDIATE
 * transaction; plus leftovers in the agent's sessions dir.
 */
export async function everyKindSqliteStore(dbPath: string, now: number, total: number): Promise<GeneratedKey[]> {
  const {openAgentDb} = await import('../../src/store/sqlite/driver.js')
  const {writeEntryTx} = await import('../../src/store/sqlite/entry-rows.js')
  const {appendEventsTx, chainNew} = await import('../../src/store/sqlite/append.js')
  const {makeSqliteHeader} = await import('../../src/store/sqlite/write.js')
  const h = openAgentDb(dbPath, {write: true, agentId: 'main'})
  const written: GeneratedKey[] = []
  try {
    const existing = Number((h.db.prepare('SELECT count(*) AS n FROM session_nodes').get() as {n: number}).n)
    h.db.exec('BEGIN IMMEDIATE')
    try {
      for (let i = 0; i < total - existing; i++) {
        const k = generatedKey(i, now)
        const at = new Date(k.at)
        const sessionId = uuidOf(200_000 + i)
        writeEntryTx(h.db, {agentId: 'main', key: k.key, entry: {model: 'claude-mock', modelProvider: 'mockant', ...k.extra, sessionId, updatedAt: k.at, sessionStartedAt: k.at, lastInteractionAt: k.at, lastActivityAt: k.at} as never})
        const items = [{type: 'message', message: {role: 'user', content: [{type: 'text', text: `hello ${k.key}`}], timestamp: k.at}}]
        appendEventsTx(h.db, sessionId, [makeSqliteHeader(sessionId, '/work', at), ...chainNew(items as never, null, at)], {now: k.at, strict: true})
        written.push(k)
      }
      h.db.exec('COMMIT')
    } catch (error) {
      h.db.exec('ROLLBACK')
      throw error
    }
  } finally {
    h.db.close()
  }
  const dir = path.join(path.dirname(path.dirname(dbPath)), 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  leftovers(dir, now)
  return written
}
