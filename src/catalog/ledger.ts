// `sessions usage` and `sessions list --usage` from the catalog's ledger: the calls the catalog read out of every
// transcript (refresh.ts keeps one row per call, and a partial sum per transcript), fed to the same builder as a scan's
// reads, in the same order, so the totals are a scan's. Transcripts OpenClaw removed since keep their calls here, and
// count as removed spend. Figures a partial cannot stand for (no recorded cost, fractional tokens, odd times) go call by
// call; an unterminated last line is read from the store as a scan reads it.
import {UNKNOWN_KEY, USAGE_LINES, type CallFields, priceCall, scanTranscriptUsage, type TranscriptCalls, type UsageBuilder, type UsageCtx, type UsageLedger} from '../sessions/usage.js'
import type {OpenClawConfig} from '../config/config.js'
import type {SessionReader, SessionWhere} from '../store/types.js'
import type {CatalogDb} from './db.js'
import type {CommandCatalog} from './index.js'
import {type AgentView, partialOf} from './refresh.js'
import {tailSpan} from './spans.js'

interface Model {
  provider?: string
  model?: string
}

function modelsOf(c: CatalogDb): Map<number, Model> {
  const out = new Map<number, Model>()
  for (const r of c.stmt('SELECT id, provider, model FROM models').all()) out.set(Number(r.id), {...(typeof r.provider === 'string' ? {provider: r.provider} : {}), ...(typeof r.model === 'string' ? {model: r.model} : {})})
  return out
}

/** A transcript's calls as CallFields, in line order (what a scan's grepLines would have parsed out of them). */
function callsOf(c: CatalogDb, models: Map<number, Model>, id: number, window: {since?: number; until?: number} = {}): CallFields[] {
  // A time window is applied in SQL too: the builder would drop the same calls (those outside it, and those without a
  // time), so only fewer rows are made into objects.
  const {since, until} = window
  const rows =
    since === undefined && until === undefined
      ? c.stmt('SELECT at, model, input, output, cache_read, cache_write, total_tokens, cost_nano, cost, bad_values, bad_cost FROM calls WHERE transcript = ? ORDER BY line').all(id)
      : c.stmt('SELECT at, model, input, output, cache_read, cache_write, total_tokens, cost_nano, cost, bad_values, bad_cost FROM calls WHERE transcript = ? AND at >= ? AND at <= ? ORDER BY line').all(id, since ?? Number.MIN_SAFE_INTEGER, until ?? Number.MAX_SAFE_INTEGER)
  return rows.map((r) => {
    const cost = r.cost_nano !== null ? Number(r.cost_nano) / 1e9 : r.cost !== null ? Number(r.cost) : undefined
    const m = r.model === null ? undefined : models.get(Number(r.model))
    return {
      usage: {
        input: Number(r.input),
        output: Number(r.output),
        cacheRead: Number(r.cache_read),
        cacheWrite: Number(r.cache_write),
        totalTokens: Number(r.total_tokens),
        ...(cost === undefined ? {} : {cost}),
        badValues: Number(r.bad_values),
        ...(Number(r.bad_cost) ? {badCost: true as const} : {}),
      },
      ...(r.at === null ? {} : {t: Number(r.at)}),
      ...(m?.provider === undefined ? {} : {provider: m.provider}),
      ...(m?.model === undefined ? {} : {model: m.model}),
    }
  })
}

interface Kept {
  id: number
  odd: number
  partial: string | null
  bad: number
}

/** The ledger rows of the agents' listed transcripts, read in one go per agent (nothing is added to the builder until all are read). */
function keptOf(c: CatalogDb, agentId: string): Map<number, Kept> {
  const out = new Map<number, Kept>()
  // Every unreadable line counts (USAGE_LINES asks for them all: any may have been a call).
  const rows = c.stmt('SELECT t.id, t.odd, t.partial, (SELECT count(*) FROM bad_lines b WHERE b.transcript = t.id) AS bad FROM transcripts t WHERE t.agent = ? AND t.removed_at IS NULL').all(agentId)
  for (const r of rows) out.set(Number(r.id), {id: Number(r.id), odd: Number(r.odd), partial: typeof r.partial === 'string' ? r.partial : null, bad: Number(r.bad)})
  return out
}

/** Adds one transcript the catalog holds: its partial when the grouping allows, else its calls one by one. */
function addKept(b: UsageBuilder, c: CatalogDb, models: Map<number, Model>, config: OpenClawConfig, ctx: UsageCtx, k: Kept, partialOk: boolean): void {
  if (partialOk && b.takesPartials && k.odd === 0) return b.addPartial(ctx, partialOf(k.partial))
  // A time window (the status line's month, a budget's day): a transcript whose partial stands for every call and
  // whose calls all fall outside it adds nothing, and its calls are not read. A call without a time is never in a window.
  const {since, until} = b.window
  if (partialOk && k.odd === 0 && (since !== undefined || until !== undefined)) {
    const p = partialOf(k.partial)
    if (p.lastT === null || p.firstT === null || (since !== undefined && p.lastT < since) || (until !== undefined && p.firstT > until)) return
  }
  for (const f of callsOf(c, models, k.id, b.window)) b.addCall(ctx, priceCall(config, f))
}

/** The usage ledger `sessions usage` takes (UsageLedger): the catalog of the command, refreshed per agent first. */
export function catalogLedger(cat: CommandCatalog): UsageLedger {
  return {
    async usage(b, state, agents, q) {
      const views: {agentId: string; store: SessionReader; view: AgentView}[] = []
      for (const agentId of agents) {
        const store = state.store(agentId)
        const view = await cat.view(agentId, store)
        if (!view) return false
        views.push({agentId, store, view})
      }
      const c = cat.get()
      if (!c) return false
      let models: Map<number, Model>
      let kept: Map<number, Kept>[]
      let removed: {id: number; agent: string; sessionId: string; key: string | null; where: string; ended: string}[]
      try {
        models = modelsOf(c.db)
        kept = views.map((v) => keptOf(c.db, v.agentId))
        removed = c.db
          .stmt(`SELECT id, agent, session_id, session_key, "where", ended FROM transcripts WHERE removed_at IS NOT NULL AND agent IN (${agents.map(() => '?').join(', ')}) ORDER BY id`)
          .all(...agents)
          .map((r) => ({id: Number(r.id), agent: String(r.agent), sessionId: String(r.session_id), key: r.session_key === null ? null : String(r.session_key), where: String(r.where), ended: String(r.ended)}))
      } catch (error) {
        c.failure = error as Error
        return false
      }
      for (const [i, {agentId, store, view}] of views.entries()) {
        for (const s of view.sessions) {
          if (!q.includeArchived && s.ended !== 'current') continue
          if (!s.transcript.exists) continue
          b.transcripts++
          const ctx: UsageCtx = {agentId, sessionId: s.sessionId, where: s.where, key: s.key ?? UNKNOWN_KEY}
          const id = view.ids.get(s.transcript.locator)
          const k = id === undefined ? undefined : kept[i].get(id)
          if (!k) {
            // Not in the catalog (it went away during the refresh): read as a scan reads it.
            await scanTranscriptUsage(b, state.config, store, ctx, store.grepLines(s.transcript, USAGE_LINES))
            continue
          }
          addKept(b, c.db, models, state.config, ctx, k, true)
          b.badLines += k.bad
          const tail = tailSpan(view.marks.get(k.id))
          if (tail) await scanTranscriptUsage(b, state.config, store, ctx, store.grepSpans(s.transcript, [tail], USAGE_LINES))
        }
        for (const r of removed) {
          if (!q.removedSpend || r.agent !== agentId || (!q.includeArchived && r.ended !== 'current')) continue
          b.removed.transcripts++
          const ctx: UsageCtx = {agentId, sessionId: r.sessionId, where: r.where as SessionWhere, key: r.key ?? UNKNOWN_KEY, removed: true}
          // Some of a removed transcript's calls may have gone (seen again elsewhere): call by call, never its partial.
          addKept(b, c.db, models, state.config, ctx, {id: r.id, odd: 1, partial: null, bad: 0}, false)
        }
      }
      // Another process wrote to the catalog since the views were made: a call may be in its rows and in a view's unread
      // tail both (CommandCatalog.unchanged). The caller scans, into a builder of its own.
      return cat.unchanged()
    },
  }
}

/**
 * `sessions list --usage` from the ledger (TranscriptCalls): only for an agent the catalog already holds (a listing
 * never builds the catalog for the first time), refreshed first; undefined: the caller reads the transcript.
 */
export function catalogTranscriptCalls(cat: CommandCatalog): TranscriptCalls {
  let models: Map<number, Model> | undefined
  return {
    async calls(store, agentId, t) {
      if (!cat.holds(agentId)) return undefined
      const view = await cat.view(agentId, store)
      const c = cat.get()
      const id = view?.ids.get(t.locator)
      if (!view || !c || id === undefined) return undefined
      models ??= modelsOf(c.db)
      const tail = tailSpan(view.marks.get(id))
      const calls = callsOf(c.db, models, id)
      // Rows another process wrote since the view may hold the view's tail too: the caller reads the transcript.
      if (!cat.unchanged()) return undefined
      return {calls, ...(tail ? {tail: store.grepSpans(t, [tail], USAGE_LINES)} : {})}
    },
  }
}
