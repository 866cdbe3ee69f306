// Checks of a host's replica: internal consistency (what every committed sync leaves, killed or not) and equality with
// the host's stores (what a completed sync leaves). Used by the crash and concurrency tests; cheap enough to run by hand.
import type {OpenClawState} from '../store/state.js'
import {sha256} from '../util/hash.js'
import type {SessionEntry} from '../store/types.js'
import type {PgClient} from './pg.js'

export interface ReplicaCheck {
  ok: boolean
  transcripts: number
  events: number
  /** One line per problem found, naming the transcript. */
  problems: string[]
}

// jsonb refuses \u0000 and surrogate escapes, which a line's strings may hold; they never touch the usage numbers, so
// they are blanked for the check.
const SAFE_JSONB = String.raw`regexp_replace(raw, '\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})', '\\u0020', 'g')::jsonb`

// As sync counts (events.ts tokens()): rounded, and 0 past 2^53.
const usageSum = (field: string) =>
  `coalesce(sum(CASE WHEN jsonb_typeof(u->'${field}') = 'number' AND abs(round((u->>'${field}')::numeric)) <= 9007199254740991 THEN round((u->>'${field}')::numeric) ELSE 0 END), 0)::bigint`

/**
 * For every transcript of `host`: its events are exactly seq 1..synced_seq (JSONL) or 0..synced_seq-1 (SQLite), none
 * missing, none beyond the mark; no event lacks its transcript; usage totals equal the sum over its events.
 */
export async function checkReplica(client: PgClient, host: string): Promise<ReplicaCheck> {
  const problems: string[] = []
  const rows = (
    await client.query<Record<string, unknown>>(
      `WITH ev AS (
         SELECT agent_id, session_id, count(*)::bigint AS n, min(seq) AS lo, max(seq) AS hi FROM clawkit_events WHERE host = $1 GROUP BY agent_id, session_id
       ), us AS (
         SELECT agent_id, session_id, count(*)::bigint AS calls, ${usageSum('input')} AS input, ${usageSum('output')} AS output, ${usageSum('cacheRead')} AS cache_read,
           ${usageSum('cacheWrite')} AS cache_write, ${usageSum('totalTokens')} AS total,
           coalesce(sum(CASE WHEN jsonb_typeof(u->'cost'->'total') = 'number' THEN (u->'cost'->>'total')::float8 ELSE 0 END), 0) AS cost
         FROM (SELECT agent_id, session_id, ${SAFE_JSONB} #> '{message,usage}' AS u FROM clawkit_events WHERE host = $1 AND entry_type = 'message' AND role = 'assistant') x
         WHERE jsonb_typeof(u) IN ('object', 'array')
         GROUP BY agent_id, session_id
       )
       SELECT t.agent_id, t.session_id, t.format, t.synced_seq, coalesce(ev.n, 0) AS n, ev.lo, ev.hi,
         t.input_tokens, t.output_tokens, t.cache_read_tokens, t.cache_write_tokens, t.total_tokens, t.cost_usd, t.calls,
         coalesce(us.calls, 0) AS u_calls, coalesce(us.input, 0) AS u_input, coalesce(us.output, 0) AS u_output, coalesce(us.cache_read, 0) AS u_cache_read,
         coalesce(us.cache_write, 0) AS u_cache_write, coalesce(us.total, 0) AS u_total, coalesce(us.cost, 0) AS u_cost
       FROM clawkit_transcripts t
       LEFT JOIN ev ON ev.agent_id = t.agent_id AND ev.session_id = t.session_id
       LEFT JOIN us ON us.agent_id = t.agent_id AND us.session_id = t.session_id
       WHERE t.host = $1`,
      [host],
    )
  ).rows
  let events = 0
  for (const r of rows) {
    const name = `${String(r.agent_id)}/${String(r.session_id)}`
    const n = Number(r.n)
    const mark = Number(r.synced_seq)
    events += n
    const [lo, hi] = r.format === 'sqlite' ? [0, mark - 1] : [1, mark]
    if (n !== mark || (n > 0 && (Number(r.lo) !== lo || Number(r.hi) !== hi))) problems.push(`${name}: ${n} events (seq ${String(r.lo)}..${String(r.hi)}), expected exactly ${lo}..${hi}`)
    for (const [col, sum] of [
      ['calls', 'u_calls'],
      ['input_tokens', 'u_input'],
      ['output_tokens', 'u_output'],
      ['cache_read_tokens', 'u_cache_read'],
      ['cache_write_tokens', 'u_cache_write'],
      ['total_tokens', 'u_total'],
    ]) {
      if (Number(r[col]) !== Number(r[sum])) problems.push(`${name}: ${col} is ${String(r[col])}, its events sum to ${String(r[sum])}`)
    }
    if (Math.abs(Number(r.cost_usd) - Number(r.u_cost)) > 1e-6) problems.push(`${name}: cost_usd is ${String(r.cost_usd)}, its events sum to ${String(r.u_cost)}`)
  }
  const orphans = await client.query<{agent_id: string; session_id: string}>(
    `SELECT DISTINCT e.agent_id, e.session_id FROM clawkit_events e
     LEFT JOIN clawkit_transcripts t ON t.host = e.host AND t.agent_id = e.agent_id AND t.session_id = e.session_id
     WHERE e.host = $1 AND t.session_id IS NULL`,
    [host],
  )
  for (const o of orphans.rows) problems.push(`${o.agent_id}/${o.session_id}: events without a transcript row`)
  return {ok: problems.length === 0, transcripts: rows.length, events, problems}
}

export interface ReplicaDiff {
  same: boolean
  /** One line per difference (first few per transcript). */
  differences: string[]
}

/**
 * The replica of `host` against the state dir's stores, agent by agent: the same index entries (as JSON values), the
 * same transcripts, and every event's raw text equal to the local line at its seq. Reads every transcript once.
 */
export async function diffReplica(state: OpenClawState, client: PgClient, host: string, agents: string[] = state.allAgentIds()): Promise<ReplicaDiff> {
  const differences: string[] = []
  const sha = (s: string) => sha256().update(s).digest('hex')
  for (const agentId of agents) {
    const store = state.store(agentId)
    const local = await store.readRows((_k: string, e: SessionEntry) => e)
    const remote = new Map((await client.query<{k: string; e: unknown}>('SELECT session_key AS k, entry AS e FROM clawkit_entries WHERE host = $1 AND agent_id = $2', [host, agentId])).rows.map((r) => [r.k, r.e]))
    for (const [k, e] of local) {
      if (!remote.has(k)) differences.push(`${agentId}: entry ${k} missing`)
      else if (!sameJson(remote.get(k), e)) differences.push(`${agentId}: entry ${k} differs`)
    }
    for (const k of remote.keys()) if (!local.has(k)) differences.push(`${agentId}: entry ${k} only on the replica`)

    const ids = new Set((await client.query<{s: string}>('SELECT session_id AS s FROM clawkit_transcripts WHERE host = $1 AND agent_id = $2', [host, agentId])).rows.map((r) => r.s))
    const seen = new Set<string>()
    for (const s of await store.allSessions()) {
      if (!s.transcript.exists || seen.has(s.sessionId)) continue
      seen.add(s.sessionId)
      if (!ids.has(s.sessionId)) {
        differences.push(`${agentId}/${s.sessionId}: transcript missing`)
        continue
      }
      const events = (await client.query<{seq: number; raw: string}>('SELECT seq, raw FROM clawkit_events WHERE host = $1 AND agent_id = $2 AND session_id = $3 ORDER BY seq', [host, agentId, s.sessionId])).rows
      const since = await store.readSince(s.transcript)
      let i = 0
      let bad = 0
      for await (const l of since.lines) {
        const ev = events[i++]
        if (bad < 3 && (!ev || Number(ev.seq) !== l.line || sha(ev.raw) !== sha(l.raw.replaceAll('\u0000', '\uFFFD')))) {
          differences.push(`${agentId}/${s.sessionId}: line ${l.line} ${ev ? `differs from event seq ${ev.seq}` : 'missing'}`)
          bad++
        }
      }
      if (events.length > i) differences.push(`${agentId}/${s.sessionId}: ${events.length - i} events more than local lines`)
    }
    for (const id of ids) if (!seen.has(id)) differences.push(`${agentId}/${id}: transcript only on the replica`)
  }
  return {same: differences.length === 0, differences}
}

/** JSON equality regardless of key order (jsonb sorts keys). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b))
}

function canon(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canon)
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
  return v
}
