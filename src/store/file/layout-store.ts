// What the JSON layout and its in-memory twin compose the same way, written once over the primitives each gives:
// reset (reset.ts's order, over its ResetBackend), a key's lineage by archive contents (lineage.ts, over its
// LineageSource), the counts of its index, the lookup by session id, and no index of its own for search.
import {entriesWithSessionId} from '../entry-lookup.js'
import {planReset, type ResetBackend, runReset} from '../reset.js'
import type {
  AgentSession,
  FoundEntry,
  KeySession,
  LineSpan,
  RawLineFilter,
  ResetOptions,
  ResetOutcome,
  ResetPlan,
  SessionEntry,
  SessionStoreData,
  StatsOptions,
  StoreCapabilities,
  StoreRef,
  StoreStats,
  TranscriptLine,
  TranscriptMark,
  TranscriptRef,
} from '../types.js'
import {allSessionsOf, lineageOf, type LineageSource} from './lineage.js'
import {statsOfIndex} from './stats.js'

export abstract class JsonLayoutStore {
  abstract readonly ref: StoreRef
  /**
   * The JSON layout keeps no index of its own beyond the sessions index: search reads the transcripts. The file store
   * tracks changes (its stats tell them); the in-memory twin does not.
   */
  readonly capabilities: StoreCapabilities = {fullText: false, contentIndex: false, changeTracking: false}

  abstract read(): Promise<SessionStoreData>
  abstract findEntry(key: string): Promise<FoundEntry | undefined>
  abstract transcriptOf(entry: Pick<SessionEntry, 'sessionId' | 'sessionFile'>, key?: string): TranscriptRef
  abstract readRows<T>(project: (key: string, entry: SessionEntry) => T): Promise<Map<string, T>>
  /** The locks, resolution and transcript moves reset.ts needs. */
  protected abstract resetBackend(): ResetBackend
  /** The archives and orphans a lineage walk reads, listed once per walk. */
  protected abstract lineageSource(): (isOrphan: (name: string) => boolean) => LineageSource

  /** Read whole: the index keeps no lookup by session id. */
  async findBySessionId(sessionId: string): Promise<FoundEntry[]> {
    return entriesWithSessionId(await this.read(), sessionId)
  }

  /** Counted from `opts.index` when the caller read the index already (status, from doctor's scan), else one read. */
  async stats(opts: StatsOptions = {}): Promise<StoreStats> {
    return statsOfIndex(opts.index ?? (await this.read()), this.ref.agentId, opts)
  }

  planReset(key: string, now: Date): Promise<ResetPlan> {
    return planReset(this.resetBackend(), key, now)
  }

  reset(key: string, opts: ResetOptions): Promise<ResetOutcome> {
    return runReset(this.resetBackend(), key, opts)
  }

  sessionsOf(key: string): Promise<KeySession[]> {
    return lineageOf(this, key, this.lineageSource())
  }

  allSessions(): Promise<AgentSession[]> {
    return allSessionsOf(this, this.lineageSource())
  }

  async indexedLines(): Promise<undefined> {
    return undefined
  }

  async contentCandidates(): Promise<undefined> {
    return undefined
  }

  // Without change tracking (capabilities): everything may have changed, and no stretch is read alone.
  async listingToken(_prev?: string): Promise<{token: string; changed: boolean}> {
    return {token: '', changed: true}
  }

  async unchangedSince(items: readonly {t: TranscriptRef; mark: TranscriptMark}[]): Promise<boolean[]> {
    return items.map(() => false)
  }

  // eslint-disable-next-line require-yield
  async *grepSpans(_t: TranscriptRef, _spans: readonly LineSpan[], _filter?: RawLineFilter): AsyncIterable<TranscriptLine> {
    throw new Error('grepSpans needs a store with capabilities.changeTracking')
  }

  transcriptBytes(_t: TranscriptRef): number | undefined {
    return undefined
  }
}
