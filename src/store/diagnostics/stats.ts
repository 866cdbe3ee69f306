// Status's figures of one agent's store, through SessionStore.stats() (a JSON-era store counted from the index doctor's
// cheap checks already read, a SQLite-era one by SQL) plus what only the layout knows: the transcripts' count and size
// from the sessions-dir listing, the database files, and what kept the store from being read. Status itself never
// touches a session file.
import fs from 'node:fs'

import {finiteNumber} from '../../util/values.js'
import type {SqliteSessionStore} from '../sqlite/store.js'
import type {OpenClawState} from '../state.js'
import type {SessionEntry} from '../types.js'
import type {StoreScan} from './file/scan.js'

/** A session that may make a recent list: rows are built only for the few that do (10 of 10 000). */
export interface RecentCandidate {
  key: string
  entry: SessionEntry
  storeAgentId: string
  updatedAt: number | null
  /** The era of the store it came from: its token freshness follows that OpenClaw release's rule (sessions/list.ts). */
  era: 'json' | 'sqlite'
}

/** A SQLite-era agent's database figures (null when it could not be read). */
export interface SqliteStoreFigures {
  path: string
  schemaVersion: number | null
  databaseBytes: number
  walBytes: number
  sessions: number | null
  events: number | null
}

export interface AgentStoreStats {
  /** The agent's index path (for a SQLite-era agent, where its legacy sessions.json would be). */
  storePath: string
  /** The agent is configured, or shares a store with a configured one. */
  configured: boolean
  count: number
  /** Newest updatedAt of the agent's sessions. */
  last: number | null
  /** The `recent` newest, newest first. */
  top: RecentCandidate[]
  /** Live transcripts (counted once, for the store's first agent). */
  transcripts: {files: number; bytes: number}
  /** Why the store could not be read, or null. */
  storeError: string | null
  /** The database of a SQLite-era agent, with its figures. */
  sqlite?: {store: string; figures: SqliteStoreFigures}
}

const byNewest = (a: {updatedAt: number | null}, b: {updatedAt: number | null}) => (b.updatedAt ?? Number.NEGATIVE_INFINITY) - (a.updatedAt ?? Number.NEGATIVE_INFINITY)

/** Keep the n newest without sorting everything (10 000 sessions, 10 kept): insertion into a short sorted list. */
export function pushTop<T extends {updatedAt: number | null}>(top: T[], item: T, n: number): void {
  if (top.length === n && byNewest(top[n - 1], item) <= 0) return
  let i = top.length
  while (i > 0 && byNewest(top[i - 1], item) > 0) i--
  top.splice(i, 0, item)
  if (top.length > n) top.pop()
}

function fileSize(p: string): number {
  try {
    return fs.statSync(p).size
  } catch {
    return 0
  }
}

/** Every key of the JSON-era indexes looked at (`sessions history` searches them all, not just the recent rows). */
export function indexKeys(scans: StoreScan[], out: string[]): void {
  for (const scan of scans) if (scan.data) for (const key of Object.keys(scan.data)) out.push(key)
}

/**
 * One agent's figures, through its SessionStore's stats(). `scans` is the look doctor's cheap checks took: a JSON-era
 * store is counted from the index that scan read (no second read; a store it could not read counts nothing). `allKeys`,
 * when given, also gets a SQLite-era agent's keys (a JSON-era store's come from indexKeys).
 */
export async function agentStoreStats(state: OpenClawState, scans: StoreScan[], id: string, opts: {recent: number; allKeys?: string[]}): Promise<AgentStoreStats> {
  const scan = scans.find((s) => s.agentIds.includes(id))
  const storePath = scan?.storePath ?? state.storeRef(id).path
  const db = state.sqliteStore(id)
  const owner = scan && scan.agentId === id
  const configured = Boolean(scan?.configured)
  // A legacy sessions.json and transcripts left beside the database are stale import input, not this agent's sessions
  // (its transcripts are in the database, whose size is in its figures).
  if (db) {
    const transcripts = {files: 0, bytes: 0}
    const sq = await sqliteAgent(state, id, db, opts.recent, opts.allKeys)
    return {storePath, configured, ...sq.sessions, transcripts, storeError: sq.error, sqlite: {store: db, figures: sq.info}}
  }
  const transcripts = {files: owner ? scan.transcripts.length : 0, bytes: owner ? scan.transcripts.reduce((s, t) => s + t.size, 0) : 0}
  const storeError = scan?.storeError ? scan.storeError.message : (scan?.readError ?? null)
  if (!scan?.data) return {storePath, configured, count: 0, last: null, top: [], transcripts, storeError}
  // A shared store is read once; its rows belong to the agent named in each key.
  const ofAgent = scan.agentIds.length === 1 && id === scan.agentId ? undefined : id
  const st = await state.storeFor({agentId: scan.agentId, path: scan.storePath}).stats({newest: opts.recent, ofAgent, index: scan.data})
  const top = st.newest.map((h) => ({key: h.storedKey, entry: h.entry, storeAgentId: scan.agentId, updatedAt: finiteNumber(h.entry.updatedAt) ?? null, era: 'json' as const}))
  return {storePath, configured, count: st.sessions, last: st.lastUpdatedAt, top, transcripts, storeError}
}

/**
 * A SQLite-era agent: counts by SQL and the newest rows by the updated_at index, never every entry. A database that
 * cannot be read (damaged, locked, a Node without node:sqlite) is reported on the agent's line, not a failed status.
 */
async function sqliteAgent(state: OpenClawState, id: string, db: string, recent: number, allKeys: string[] | undefined): Promise<{sessions: {count: number; last: number | null; top: RecentCandidate[]}; info: SqliteStoreFigures; error: string | null}> {
  const info: SqliteStoreFigures = {path: db, schemaVersion: null, databaseBytes: fileSize(db), walBytes: fileSize(`${db}-wal`), sessions: null, events: null}
  try {
    const store = state.storeFor({agentId: id, path: db}) as SqliteSessionStore
    // Every key, not just the recent rows: the Sessions table cuts keys to be unique among what history can match.
    const st = await store.stats({newest: recent, keys: allKeys !== undefined})
    info.schemaVersion = store.schemaVersion
    info.sessions = st.sessions
    info.events = st.events
    const top = st.newest.map((h) => ({key: h.storedKey, entry: h.entry, storeAgentId: id, updatedAt: h.entry.updatedAt, era: 'sqlite' as const}))
    if (allKeys) for (const k of st.keys ?? st.newest.map((h) => h.storedKey)) allKeys.push(k)
    return {sessions: {count: st.sessions, last: st.lastUpdatedAt, top}, info, error: null}
  } catch (error) {
    return {sessions: {count: 0, last: null, top: []}, info, error: error instanceof Error ? error.message : String(error)}
  }
}
