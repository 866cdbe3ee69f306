// What `openclaw sessions --json` 2026.9.6 prints for a SQLite-era store, computed straight from the database with
// node:sqlite (store-sqlite.md §3.1 and §4), independently of clawkit's code; and rows of every kind written into a
// copy of a fixture database, so the listing rules are exercised beyond the two sessions the fixtures hold.
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'

import JSON5 from 'json5'

type Db = {
  prepare(sql: string): {all(...p: unknown[]): Record<string, any>[]; get(...p: unknown[]): Record<string, any> | undefined; run(...p: unknown[]): unknown}
  exec(sql: string): void
  close(): void
}

export function openDb(file: string, readOnly = true): Db {
  const {DatabaseSync} = (process as any).getBuiltinModule('node:sqlite')
  return new DatabaseSync(file, {readOnly}) as Db
}

/** `fn` on the database opened read-only, closed after it whatever happens. */
export function query<T>(file: string, fn: (db: Db) => T): T {
  const db = openDb(file)
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

export function dbPath(state: string, agent: string): string {
  return path.join(state, 'agents', agent, 'agent', 'openclaw-agent.sqlite')
}

export function sha(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex')
}

/** The row fields of §4, in order. */
export const ROW_FIELDS = [
  'key', 'updatedAt', 'ageMs', 'sessionId', 'spawnedBy', 'spawnedWorkspaceDir', 'spawnedCwd', 'parentSessionKey', 'forkedFromParent', 'spawnDepth', 'subagentRole',
  'subagentControlScope', 'sessionStartedAt', 'lastInteractionAt', 'label', 'color', 'status', 'visibility', 'createdActor', 'owner', 'participants', 'participantCount',
  'systemSent', 'abortedLastRun', 'thinkingLevel', 'verboseLevel', 'traceLevel', 'reasoningLevel', 'elevatedLevel', 'responseUsage', 'groupActivation', 'inputTokens',
  'outputTokens', 'totalTokens', 'totalTokensFresh', 'totalTokensVersion', 'model', 'modelProvider', 'providerOverride', 'modelOverride', 'contextTokens', 'agentId',
  'acpRuntime', 'agentRuntime', 'kind',
]

function runtime(e: any): {id: string; source: string} {
  const norm = (v: unknown) => {
    if (typeof v !== 'string' || !v.trim()) return undefined
    const s = v.trim().toLowerCase()
    return s === 'pi' ? 'openclaw' : s
  }
  const id = norm(e.agentRuntimeOverride) ?? norm(e.agentHarnessId)
  return id && id !== 'auto' && id !== 'default' ? {id, source: 'session'} : {id: 'auto', source: 'implicit'}
}

function kind(key: string, e: any): string {
  if (key === 'global' || key === 'unknown') return key
  if (/^agent:[^:]+:cron:/.test(key)) return 'cron'
  if (e.spawnedBy) return 'spawn-child'
  if (e.chatType === 'group' || e.chatType === 'channel' || key.includes(':group:') || key.includes(':channel:')) return 'group'
  return 'direct'
}

/** The configured default model (`agents.defaults.model.primary`, `provider/model`) of a state dir. */
function defaultModel(state: string): {provider?: string; model?: string} {
  const primary = JSON5.parse(fs.readFileSync(path.join(state, 'openclaw.json'), 'utf8'))?.agents?.defaults?.model?.primary
  if (typeof primary !== 'string' || !primary.includes('/')) return {}
  return {provider: primary.slice(0, primary.indexOf('/')), model: primary.slice(primary.indexOf('/') + 1)}
}

/** One agent's listed rows, by the reader invariants, in session_key order (the store order). ageMs is left out. */
export function expectedAgentRows(state: string, agentId: string): Record<string, unknown>[] {
  const file = dbPath(state, agentId)
  const fallback = defaultModel(state)
  const db = openDb(file)
  try {
    const out: Record<string, unknown>[] = []
    const hasParticipants = db.prepare("SELECT name FROM sqlite_master WHERE name = 'session_participants'").all().length > 0
    const participantsOf = (key: string) =>
      hasParticipants
        ? db
            .prepare('SELECT * FROM session_participants WHERE session_key = ? ORDER BY first_prompted_at, actor_id, identity_namespace')
            .all(key)
            .map((p: any) => ({identity: {...JSON.parse(p.identity_namespace), id: p.actor_id}}))
        : []
    for (const r of db.prepare('SELECT * FROM session_nodes ORDER BY session_key').all()) {
      if (r.entry_valid === -1 || /^agent:[^:]+:internal-session-effects/.test(r.session_key)) continue
      const e = JSON.parse(r.entry_json)
      if (r.updated_at !== e.updatedAt || r.current_session_id !== e.sessionId) continue
      if (r.owner_actor_type && r.owner_actor_id) e.owner = {actor: {type: r.owner_actor_type, id: r.owner_actor_id}}
      const people = participantsOf(r.session_key)
      if (people.length > 0) Object.assign(e, {participants: people, participantCount: people.length})
      const total = typeof e.totalTokens === 'number' && e.totalTokens >= 0 ? e.totalTokens : null
      const row: Record<string, unknown> = {
        ...Object.fromEntries(ROW_FIELDS.map((f) => [f, e[f]])),
        key: r.session_key,
        ageMs: undefined,
        forkedFromParent: e.forkSource !== undefined || e.forkedFromParent === true ? true : undefined,
        visibility: e.visibility ?? 'shared',
        totalTokens: total,
        totalTokensFresh: total !== null && e.totalTokensFresh === true && e.totalTokensVersion === 1,
        model: e.modelOverride ?? e.model ?? fallback.model,
        modelProvider: e.providerOverride ?? e.modelProvider ?? fallback.provider,
        contextTokens: typeof e.contextTokens === 'number' && e.contextTokens > 0 ? e.contextTokens : 200000,
        agentId: /^agent:([^:]+):/.exec(r.session_key)?.[1] ?? agentId,
        acpRuntime: Boolean(e.acp),
        agentRuntime: runtime(e),
        kind: kind(r.session_key, e),
      }
      // As JSON.stringify prints it: undefined fields left out, the order of ROW_FIELDS kept.
      out.push(JSON.parse(JSON.stringify(row)))
    }
    return out
  } finally {
    db.close()
  }
}

/** Rows of several stores merged as the listing does: newest updatedAt first, stable. */
export function mergeRows(...stores: Record<string, unknown>[][]): Record<string, unknown>[] {
  return stores.flat().sort((a, b) => ((b.updatedAt as number) ?? 0) - ((a.updatedAt as number) ?? 0))
}

export function withoutAge(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map(({ageMs, ...rest}) => rest)
}

/** Insert a node the way OpenClaw's writer leaves it (the trigger sets entry_valid 0; the writer sets it back). */
function putNode(db: Db, key: string, entry: Record<string, unknown>, extra: {valid?: number; updatedAt?: number; owner?: [string, string]; sessionId?: string} = {}): void {
  // The lineage columns are projections of the entry that OpenClaw validates (§3.1 invariant 6).
  db.prepare('INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, owner_actor_type, owner_actor_id, parent_session_key, spawned_by, fork_source_session_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    key,
    extra.sessionId ?? String(entry.sessionId),
    JSON.stringify(entry),
    extra.updatedAt ?? (entry.updatedAt as number),
    extra.owner?.[0] ?? null,
    extra.owner?.[1] ?? null,
    (entry.parentSessionKey ?? entry.spawnedBy ?? null) as string | null,
    (entry.spawnedBy ?? null) as string | null,
    ((entry.forkSource as {sessionKey?: string} | undefined)?.sessionKey ?? null) as string | null,
  )
  db.prepare('UPDATE session_nodes SET entry_valid = ? WHERE session_key = ?').run(extra.valid ?? 1, key)
  // A placeholder keeps the window its transcript rows were written under.
  if (extra.valid === -1) db.prepare('INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, ?, ?, ?)').run(extra.sessionId ?? String(entry.sessionId), key, 1, 1)
}

/**
 * Rows of every kind the listing treats differently, added to a copy's database: cron, spawned child, group, a label
 * and levels, an owner from the owner_* columns, a stale total, a runtime override; and rows it must skip: a
 * placeholder, an internal-effects key, an updated_at that disagrees with the entry.
 */
export function addVarietyRows(file: string, agent: string, base: number): void {
  const db = openDb(file, false)
  const id = (n: number) => `0000000${n}-0000-4000-8000-00000000000${n}`
  try {
    db.exec('BEGIN IMMEDIATE')
    putNode(db, `agent:${agent}:cron:nightly`, {sessionId: id(1), updatedAt: base - 1000, model: 'claude-mock', modelProvider: 'mockant', totalTokens: 5, totalTokensFresh: true, totalTokensVersion: 1})
    putNode(db, `agent:${agent}:subagent:helper`, {sessionId: id(2), updatedAt: base - 2000, spawnedBy: `agent:${agent}:main`, spawnDepth: 1, subagentRole: 'worker', label: 'helper run', totalTokens: 9, totalTokensFresh: true})
    putNode(db, `agent:${agent}:telegram:group:-100123`, {sessionId: id(3), updatedAt: base - 3000, chatType: 'group', thinkingLevel: 'high', systemSent: true, visibility: 'private', agentRuntimeOverride: 'codex'}, {owner: ['human', 'ops-1']})
    putNode(db, `agent:${agent}:explicit:fork`, {sessionId: id(4), updatedAt: base - 4000, forkSource: {sessionKey: `agent:${agent}:main`}, totalTokens: -3, contextTokens: 0, status: 'done'})
    putNode(db, `agent:${agent}:placeholder`, {}, {valid: -1, updatedAt: base, sessionId: id(7)})
    putNode(db, `agent:${agent}:internal-session-effects:x`, {sessionId: id(5), updatedAt: base - 5000})
    putNode(db, `agent:${agent}:explicit:skewed`, {sessionId: id(6), updatedAt: base - 6000}, {updatedAt: base - 5999})
    db.exec('COMMIT')
  } finally {
    db.close()
  }
}

/** Every event of a session as OpenClaw stores it, decoded (zstd included): what history --raw must print. */
export function eventsOf(file: string, sessionId: string): {seq: number; text: string; compressed: boolean}[] {
  const db = openDb(file)
  try {
    return db.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq').all(sessionId).map((r) => ({
      seq: r.seq,
      compressed: r.event_json === null,
      text: r.event_json ?? (zlib as any).zstdDecompressSync(r.event_zstd, {maxOutputLength: r.event_utf8_bytes}).toString('utf8'),
    }))
  } finally {
    db.close()
  }
}
