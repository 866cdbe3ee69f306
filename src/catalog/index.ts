// The local catalog as the commands use it: opened once per command on a state dir, brought up to date per agent before
// each answer (refresh.ts), then asked where a search's candidates are (search.ts) or what was spent (ledger.ts). Any
// failure of the catalog itself (not of the store) makes the command scan instead, and says so once on stderr.
import fs from 'node:fs'
import path from 'node:path'

import {ClawkitError} from '../errors.js'
import {IndexFailed, type SearchIndex} from '../sessions/search.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionReader, TranscriptMark} from '../store/types.js'
import {type CatalogDb, catalogDir, CatalogUnavailable, openCatalogDb} from './db.js'
import {type WordQuery, wordQuery} from './query.js'
import type {AgentView, RefreshOptions} from './refresh.js'
import {type WordAnswer, wordAnswer} from './spans.js'

export {CatalogUnavailable} from './db.js'
export type {AgentView, RefreshProgress} from './refresh.js'

export class Catalog {
  private readonly views = new Map<string, AgentView>()
  /** Set when the catalog failed during this command: from then on the command scans. */
  failure?: Error
  /** PRAGMA data_version before the first refresh: another connection's commit since changes it (unchanged()). */
  private version?: number

  private constructor(
    readonly db: CatalogDb,
    private readonly state: OpenClawState,
    private readonly refresh: RefreshOptions,
  ) {}

  /** The catalog of the state dir (created on first use), or why there is none (Node 20, an unwritable data dir...). */
  static open(state: OpenClawState, opts: RefreshOptions & {env?: Record<string, string | undefined>} = {}): Catalog | CatalogUnavailable {
    const db = openCatalogDb(state.stateDir, {env: opts.env, create: true})
    if (db instanceof CatalogUnavailable) return db
    return new Catalog(db, state, opts)
  }

  get file(): string {
    return this.db.file
  }

  /** Whether an agent's store can be kept in the catalog: one that tracks its changes (the file and SQLite stores; not a test's memory store). */
  covers(store: SessionReader): boolean {
    return store.capabilities.changeTracking
  }

  /**
   * The agent brought up to date, once per command; undefined when its store is not covered or the catalog failed (the
   * caller scans). An error of the store itself (an unreadable index) is the command's, as it would be for a scan.
   */
  async view(agentId: string, store: SessionReader = this.state.store(agentId)): Promise<AgentView | undefined> {
    if (this.failure || !this.covers(store)) return undefined
    const have = this.views.get(agentId)
    if (have) return have
    try {
      this.version ??= this.dataVersion()
      // The catalog's reading code (and the search and usage code it shares) loads only when a catalog is used.
      const {refreshAgent} = await import('./refresh.js')
      const view = await refreshAgent(this.db, store, agentId, this.refresh)
      this.views.set(agentId, view)
      return view
    } catch (error) {
      if (error instanceof ClawkitError) throw error
      this.failure = error as Error
      return undefined
    }
  }

  /**
   * How many transcripts the catalog holds changed since it was last brought up to date, by one stat each (unchangedSince),
   * reading none: `clawkit index --status`. Agents the state no longer has are left out.
   */
  async changedSinceRefresh(): Promise<number> {
    let changed = 0
    const agents = new Set(this.state.allAgentIds())
    for (const r of this.db.stmt('SELECT agent FROM agents').all()) {
      const agentId = String(r.agent)
      if (!agents.has(agentId)) continue
      const store = this.state.store(agentId)
      if (!this.covers(store)) continue
      const items = this.db
        .stmt('SELECT locator, mark FROM transcripts WHERE agent = ? AND removed_at IS NULL AND mark IS NOT NULL')
        .all(agentId)
        .flatMap((t) => {
          try {
            return [{t: {locator: String(t.locator), location: 'derived' as const, exists: true}, mark: JSON.parse(String(t.mark)) as TranscriptMark}]
          } catch {
            return []
          }
        })
      const same = await store.unchangedSince(items)
      changed += same.filter((x) => !x).length
    }
    return changed
  }

  /**
   * Whether no other process has written to the catalog since this command's first refresh (PRAGMA data_version moves
   * with every commit of another connection, never with this one's). Views hold the marks their refresh saw, and an
   * answer reads the rows as they are when it runs: a line another process indexed in between (an unterminated last
   * line, ended and read by it) would be counted from the rows and again as the view's unread tail. Checked after an
   * answer: then every row it read was of the views' moment.
   */
  unchanged(): boolean {
    if (this.version === undefined) return true
    try {
      return this.dataVersion() === this.version
    } catch {
      return false
    }
  }

  private dataVersion(): number {
    return Number(this.db.stmt('PRAGMA data_version').get()?.data_version)
  }

  /** The word index's answer for a search on this view (search.ts): exact, or the spans to read; undefined: scan. */
  answer(view: AgentView, query: WordQuery): WordAnswer | undefined {
    if (this.failure) return undefined
    try {
      return wordAnswer(this.db, view, query)
    } catch (error) {
      this.failure = error as Error
      return undefined
    }
  }

  close(): void {
    this.db.close()
  }
}

/** The one line a command prints on stderr when it scans because the catalog cannot be used. */
export function catalogNotice(why: CatalogUnavailable | Error): string {
  const reason = why instanceof CatalogUnavailable ? why.reason : `the catalog failed (${why.message.split('\n')[0]})`
  return `clawkit: ${reason}; reading every transcript instead (clawkit index --status says more).`
}

/**
 * The catalog as a command uses it: opened on first use only (a search with no usable pattern, or a failing flag,
 * never opens it), a notice on stderr when it cannot be used or fails, and closed with the command. On a Node without
 * node:sqlite the notice is given once per data dir (a marker file there), since nothing the user can do there changes
 * it but upgrading Node; any other reason is said every time.
 */
export class CommandCatalog {
  private opened?: Catalog | CatalogUnavailable
  private noted = false

  constructor(
    private readonly state: OpenClawState,
    private readonly notify: (line: string) => void,
    private readonly opts: RefreshOptions & {env?: Record<string, string | undefined>} = {},
  ) {}

  get(): Catalog | undefined {
    if (!this.opened) {
      this.opened = Catalog.open(this.state, this.opts)
      if (this.opened instanceof CatalogUnavailable) this.note(this.opened)
    }
    return this.opened instanceof Catalog && !this.opened.failure ? this.opened : undefined
  }

  /** The agent's view (undefined: scan it), with a notice the first time the catalog fails. */
  async view(agentId: string, store: SessionReader): Promise<AgentView | undefined> {
    const c = this.get()
    if (!c) return undefined
    const v = await c.view(agentId, store)
    if (c.failure) this.note(c.failure)
    return v
  }

  /** Whether the catalog already holds this agent (an earlier search, usage or `clawkit index` read it). */
  holds(agentId: string): boolean {
    const c = this.get()
    if (!c) return false
    try {
      return c.db.stmt('SELECT 1 AS x FROM agents WHERE agent = ?').get(agentId) !== undefined
    } catch {
      return false
    }
  }

  /** The narrowing index `sessions search` takes. */
  searchIndex(): SearchIndex<WordQuery> {
    return {
      query: wordQuery,
      view: (agentId, store) => this.view(agentId, store),
      answer: (view, query) => {
        const c = this.get()
        const out = c?.answer(view as AgentView, query)
        if (c?.failure) this.note(c.failure)
        return out?.exact ? this.guarded(c!, out) : out
      },
      unchanged: () => this.unchanged(),
    }
  }

  /** Whether the catalog is as this command's views saw it (Catalog.unchanged); true when none is open. */
  unchanged(): boolean {
    return !(this.opened instanceof Catalog) || this.opened.unchanged()
  }

  /**
   * An exact answer whose count and newest spans, read after answer() returned, fail as the search expects: the
   * catalog's failure is noted and IndexFailed makes the search scan (a store's own error stays the command's).
   */
  private guarded(c: Catalog, a: WordAnswer & {exact: true}): WordAnswer {
    const guard = <T>(fn: () => T): T => {
      try {
        return fn()
      } catch (error) {
        if (error instanceof ClawkitError) throw error
        c.failure = error as Error
        this.note(c.failure)
        throw new IndexFailed((error as Error).message)
      }
    }
    return {
      ...a,
      count: (include) => guard(() => a.count(include)),
      newest(include) {
        const it = guard(() => a.newest(include))
        return {next: () => guard(() => it.next())}
      },
    }
  }

  close(): void {
    if (this.opened instanceof Catalog) this.opened.close()
  }

  private note(why: CatalogUnavailable | Error): void {
    if (this.noted) return
    this.noted = true
    if (why instanceof CatalogUnavailable && why.code === 'disabled') return
    if (why instanceof CatalogUnavailable && why.code === 'node') {
      const marker = path.join(catalogDir(this.opts.env), '.node-notice')
      if (fs.existsSync(marker)) return
      try {
        fs.mkdirSync(path.dirname(marker), {recursive: true, mode: 0o700})
        fs.writeFileSync(marker, `${why.reason}\n`, {mode: 0o600})
      } catch {}
    }
    this.notify(catalogNotice(why))
  }
}
