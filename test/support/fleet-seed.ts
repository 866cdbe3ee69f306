// TEST-ONLY loader for the fleet replica: copies one local state dir into the `clawkit_*` tables exactly as
// docs/fleet.md says, through the store interface (read(), allSessions(), readLines()), a full copy with no incremental
// logic. It stands in for `clawkit sync` (written in parallel) until that lands; the read tests then switch to it.
import {connectPg} from '../../src/fleet/pg.js'
import {migrate} from '../../src/fleet/schema.js'
import {readUsage} from '../../src/sessions/lineage.js'
import {searchTextOf} from '../../src/sessions/search.js'
import {OpenClawState} from '../../src/store/state.js'

export interface SeedResult {
  agents: number
  entries: number
  transcripts: number
  events: number
}

/**
 * Copies `stateDir` into the replica at `url` as host `host` (replacing what that host had there). `lastSyncAt` sets
 * clawkit_hosts.last_sync_at (default: now).
 */
export async function seedHost(url: string, opts: {host: string; stateDir: string; agents?: string[]; lastSyncAt?: Date}): Promise<SeedResult> {
  const state = OpenClawState.open({stateDir: opts.stateDir, ignoreSettings: true, env: {...process.env, OPENCLAW_STATE_DIR: undefined, CLAWKIT_CONFIG_DIR: '/nonexistent'}})
  const client = await connectPg(url)
  const out: SeedResult = {agents: 0, entries: 0, transcripts: 0, events: 0}
  try {
    await migrate(client)
    await client.query('BEGIN')
    const prices: Record<string, Record<string, unknown>> = {}
    for (const [provider, p] of Object.entries(state.config.models?.providers ?? {})) {
      for (const m of (p as {models?: {id?: string; cost?: unknown}[]}).models ?? []) if (m?.id && m.cost) (prices[provider] ??= {})[m.id] = m.cost
    }
    await client.query('DELETE FROM clawkit_hosts WHERE host = $1', [opts.host])
    await client.query('INSERT INTO clawkit_hosts (host, last_sync_started_at, last_sync_at, clawkit_version, prices) VALUES ($1, $2, $2, $3, $4)', [opts.host, opts.lastSyncAt ?? new Date(), 'test-seed', JSON.stringify(prices)])
    for (const agentId of opts.agents ?? state.allAgentIds()) {
      const era = state.sqliteStore(agentId) ? 'sqlite' : 'json'
      const ref = state.sessionStoreRef(agentId)
      const store = state.storeFor(ref)
      await client.query('INSERT INTO clawkit_agents (host, agent_id, era, store_path) VALUES ($1, $2, $3, $4)', [opts.host, agentId, era, ref.path])
      out.agents++
      const data = await store.read()
      for (const [key, entry] of Object.entries(data)) {
        const updatedAt = typeof entry.updatedAt === 'number' && Number.isFinite(entry.updatedAt) ? Math.trunc(entry.updatedAt) : null
        await client.query('INSERT INTO clawkit_entries (host, agent_id, session_key, session_id, updated_at, entry) VALUES ($1, $2, $3, $4, $5, $6)', [
          opts.host,
          agentId,
          key,
          typeof entry.sessionId === 'string' ? entry.sessionId : null,
          updatedAt,
          JSON.stringify(entry),
        ])
        out.entries++
      }
      for (const s of await store.allSessions()) {
        if (!s.transcript.exists) continue
        const totals = {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, calls: 0}
        const rows: unknown[][] = []
        for await (const line of store.readLines(s.transcript)) {
          const v = line.value
          const msg = v?.type === 'message' ? (v.message as Record<string, unknown> | undefined) : undefined
          if (msg?.role === 'assistant') {
            const u = readUsage(msg.usage)
            if (u) {
              totals.input += u.input
              totals.output += u.output
              totals.cacheRead += u.cacheRead
              totals.cacheWrite += u.cacheWrite
              totals.totalTokens += u.totalTokens
              totals.cost += u.cost ?? 0
              totals.calls++
            }
          }
          const at = typeof v?.timestamp === 'string' && Number.isFinite(Date.parse(v.timestamp)) ? new Date(v.timestamp) : null
          rows.push([line.line, line.raw.replaceAll('\u0000', '\uFFFD'), v && typeof v.type === 'string' ? v.type : null, v && typeof v.id === 'string' ? v.id : null, typeof msg?.role === 'string' ? msg.role : null, at, searchTextOf(v)])
        }
        await client.query(
          `INSERT INTO clawkit_transcripts (host, agent_id, session_id, session_key, locator, "where", ended, ended_at, found_by, format, synced_seq,
             input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, total_tokens, cost_usd, calls)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
          [
            opts.host,
            agentId,
            s.sessionId,
            s.key,
            s.transcript.locator,
            s.where,
            s.ended,
            s.endedAt ?? null,
            s.foundBy,
            era === 'sqlite' ? 'sqlite' : 'jsonl',
            rows.length === 0 ? 0 : (rows.at(-1)![0] as number),
            totals.input,
            totals.output,
            totals.cacheRead,
            totals.cacheWrite,
            totals.totalTokens,
            totals.cost,
            totals.calls,
          ],
        )
        out.transcripts++
        const col = (i: number) => rows.map((r) => r[i])
        if (rows.length > 0) {
          await client.query(
            `INSERT INTO clawkit_events (host, agent_id, session_id, seq, raw, entry_type, entry_id, role, at, search_text)
             SELECT $1, $2, $3, * FROM unnest($4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[])`,
            [opts.host, agentId, s.sessionId, col(0), col(1), col(2), col(3), col(4), col(5), col(6)],
          )
        }
        out.events += rows.length
      }
    }
    await client.query('COMMIT')
    return out
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    await client.end()
    state.close()
  }
}
