// Which transcripts a key has had (SessionStore.sessionsOf) in the JSON layout and its in-memory twin: the live one, and
// the `.reset.` / `.deleted.` archives found by what they hold, never by their names alone. An archive names only its
// own sessionId (its header); the key it served is found from, in order of strength: OpenClaw's trajectory sidecar
// (`<sid>.trajectory.jsonl`, whose events carry sessionKey), the key's topic in the file name, the entry's
// previousSessionId, and the reset chain: a reset archives the old transcript under the reset's time and gives the new
// one a header of that same time, so an archive whose suffix time is the start of a session of this key was its
// predecessor. Archives another key claims are never taken.
import {isSafeSessionId} from '../session-id.js'
import {normalizeSessionKey, transcriptTopicId} from '../session-key.js'
import type {TranscriptHeader} from '../transcript-types.js'
import type {AgentSession, KeySession, SessionEntry, SessionStore, TranscriptRef} from '../types.js'

const ARCHIVE_RE = /^(.+\.jsonl)\.(reset|deleted)\.(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)$/

/** `<name>.jsonl.reset.<ISO with - for :>`: the archived file's name, kind and time (ms), or undefined. */
export function parseArchiveName(name: string): {base: string; kind: 'reset' | 'deleted'; at: number} | undefined {
  const m = ARCHIVE_RE.exec(name)
  if (!m) return undefined
  const iso = m[3].replace(/T(\d{2})-(\d{2})-(\d{2})/, 'T$1:$2:$3')
  const at = Date.parse(iso)
  return Number.isFinite(at) ? {base: m[1], kind: m[2] as 'reset' | 'deleted', at} : undefined
}

/** How far a reset's archive time and the new header's time may lie apart (OpenClaw takes them a few ms apart). */
const RESET_CHAIN_TOLERANCE_MS = 5000

export interface ArchiveCandidate {
  ref: TranscriptRef
  name: string
}

export interface LineageSource {
  /** Every archive file of the store (`*.jsonl.reset.*`, `*.jsonl.deleted.*`). */
  archives(): Promise<ArchiveCandidate[]>
  /** Live-named transcripts no index entry points at (what doctor reports as orphans). */
  orphans(): Promise<ArchiveCandidate[]>
  /** The header a transcript starts with, undefined when it has none. */
  header(t: TranscriptRef): Promise<TranscriptHeader | undefined>
  /** The session key OpenClaw's trajectory sidecar of this sessionId names, if there is one. */
  sidecarKey(sessionId: string): Promise<string | undefined>
}

function timeOf(h: TranscriptHeader | undefined): number | undefined {
  const t = h ? Date.parse(h.timestamp) : Number.NaN
  return Number.isFinite(t) ? t : undefined
}

interface Arch extends ArchiveCandidate {
  kind: 'reset' | 'deleted'
  at: number
  header?: TranscriptHeader
  start?: number
  /** The normalized key its sidecar names. */
  owner?: string
}

interface Orphan extends ArchiveCandidate {
  header?: TranscriptHeader
  id: string
  owner?: string
}

/** The first index of a sorted array whose value is >= x. */
function lowerBound<T>(a: readonly T[], x: number, val: (t: T) => number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (val(a[mid]) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * What every key's lineage is decided from, read once: each archive's and orphan's header and sidecar owner, archives
 * sorted by time, and every key's session start. `sessionsOf` builds it for one key, `allSessions` once for all of
 * them, so an agent-wide walk reads each archive's header once instead of once per key.
 */
export class LineageIndex {
  private constructor(
    readonly src: LineageSource,
    /** By archive time. */
    readonly archives: readonly Arch[],
    readonly orphans: readonly Orphan[],
    /** Every key's sessionStartedAt, sorted (a key's own start is discounted when it is judged). */
    readonly starts: readonly number[],
    private readonly byOwner: ReadonlyMap<string, readonly Arch[]>,
    private readonly byHeaderId: ReadonlyMap<string, readonly Arch[]>,
  ) {}

  static async build(src: LineageSource, starts: number[]): Promise<LineageIndex> {
    const archives: Arch[] = []
    for (const c of await src.archives()) {
      const p = parseArchiveName(c.name)
      if (!p) continue
      const header = await src.header(c.ref)
      const owner = header ? await src.sidecarKey(header.id) : undefined
      archives.push({...c, kind: p.kind, at: p.at, header, start: timeOf(header), owner: owner === undefined ? undefined : normalizeSessionKey(owner)})
    }
    archives.sort((x, y) => x.at - y.at)
    const orphans: Orphan[] = []
    for (const o of await src.orphans()) {
      const header = await src.header(o.ref)
      const id = header && isSafeSessionId(header.id) ? header.id : o.name.slice(0, -'.jsonl'.length)
      const owner = await src.sidecarKey(id)
      orphans.push({...o, header, id, owner: owner === undefined ? undefined : normalizeSessionKey(owner)})
    }
    const group = (by: (a: Arch) => string | undefined) => {
      const m = new Map<string, Arch[]>()
      for (const a of archives) {
        const k = by(a)
        if (k === undefined) continue
        const list = m.get(k)
        if (list) list.push(a)
        else m.set(k, [a])
      }
      return m
    }
    return new LineageIndex(src, archives, orphans, [...starts].sort((x, y) => x - y), group((a) => a.owner), group((a) => a.header?.id))
  }

  /** Whether another key's session started nearer `at` than `d` (the key's own start, `own`, does not count). */
  private rivalNearer(at: number, d: number, own: number | undefined): boolean {
    let n = lowerBound(this.starts, at - d, (x) => x)
    let count = 0
    for (; n < this.starts.length && this.starts[n] < at + d; n++) if (this.starts[n] > at - d) count++
    if (own !== undefined && own > at - d && own < at + d) count--
    return count > 0
  }

  /**
   * The key's sessions, oldest first, the live one last (when the key has an entry). An archive whose time lies nearer
   * another key's session start than this key's is that key's predecessor, not ours (two keys reset in the same
   * seconds).
   */
  async lineage(key: string, current: {entry: SessionEntry; ref: TranscriptRef} | undefined): Promise<KeySession[]> {
    const want = normalizeSessionKey(key)
    const topic = transcriptTopicId(key)
    const own = typeof current?.entry.sessionStartedAt === 'number' ? current.entry.sessionStartedAt : undefined
    const taken = new Map<Arch, KeySession['foundBy']>()
    const free = (a: Arch) => a.owner === undefined && !taken.has(a)
    for (const a of this.byOwner.get(want) ?? []) taken.set(a, 'trajectory')
    if (topic !== undefined) {
      const infix = `-topic-${encodeURIComponent(topic)}.jsonl.`
      for (const a of this.archives) if (a.owner === undefined && a.name.includes(infix)) taken.set(a, 'topic')
    }
    const prev = current?.entry.previousSessionId
    if (typeof prev === 'string') for (const a of this.byHeaderId.get(prev) ?? []) if (free(a)) taken.set(a, 'previous-session-id')
    // Walk back from every session already known: the archive made by the reset that started it.
    // The live header only dates the session for the reset chain below: with no reset archive there is nothing to chain.
    const liveHeader = current?.ref.exists && this.archives.some((a) => a.kind === 'reset') ? await this.src.header(current.ref) : undefined
    const starts: number[] = []
    const liveStart = timeOf(liveHeader) ?? own
    if (liveStart !== undefined) starts.push(liveStart)
    for (const a of taken.keys()) if (a.start !== undefined) starts.push(a.start)
    while (starts.length > 0) {
      const s = starts.pop()!
      let best: Arch | undefined
      for (let i = lowerBound(this.archives, s - RESET_CHAIN_TOLERANCE_MS, (a) => a.at); i < this.archives.length && this.archives[i].at <= s + RESET_CHAIN_TOLERANCE_MS; i++) {
        const a = this.archives[i]
        if (!free(a) || a.kind !== 'reset') continue
        if (this.rivalNearer(a.at, Math.abs(a.at - s), own)) continue
        // Two reset archives equally near the start: the earlier wins (archives are in time order). The per-key walk
        // this replaced took whichever the directory listed first, which no rule fixed.
        if (!best || Math.abs(a.at - s) < Math.abs(best.at - s)) best = a
      }
      if (best) {
        taken.set(best, 'reset-time')
        if (best.start !== undefined) starts.push(best.start)
      }
    }
    // Orphans carry no archive time to chain by: only OpenClaw's sidecar or the key's topic ties one to the key.
    const orphans: (KeySession & {sortAt: number})[] = []
    // The current session's transcript gone from its name but present under another one, by its header id: what
    // doctor's transcript-missing repair re-attaches. Lineage shows it as the current session, found by that header.
    let reattach: TranscriptRef | undefined
    for (const o of this.orphans) {
      if (current && !current.ref.exists && !reattach && o.header?.id === current.entry.sessionId) {
        reattach = o.ref
        continue
      }
      const foundBy = o.owner !== undefined ? (o.owner === want ? 'trajectory' : undefined) : topic !== undefined && o.name.endsWith(`-topic-${encodeURIComponent(topic)}.jsonl`) ? 'topic' : undefined
      if (!foundBy) continue
      orphans.push({sessionId: o.id, where: 'orphan', transcript: o.ref, ended: 'orphaned', foundBy, sortAt: timeOf(o.header) ?? 0})
    }
    const out: (KeySession & {sortAt: number})[] = [...taken].map(([a, foundBy]) => ({...archiveSession(a), foundBy, sortAt: a.start ?? a.at}))
    out.push(...orphans)
    out.sort((x, y) => x.sortAt - y.sortAt)
    const list: KeySession[] = out.map(({sortAt: _s, ...k}) => k)
    if (current) {
      list.push(
        reattach
          ? {sessionId: current.entry.sessionId, where: 'orphan', transcript: reattach, ended: 'current', foundBy: 'header'}
          : {sessionId: current.entry.sessionId, where: 'live', transcript: current.ref, ended: 'current', foundBy: 'index'},
      )
    }
    return list
  }

  /** Archives and orphans in none of `claimed` (locators), as sessions of the key their sidecar names, or of none. */
  unclaimed(claimed: ReadonlySet<string>): AgentSession[] {
    const out: (AgentSession & {sortAt: number})[] = []
    for (const a of this.archives) {
      if (claimed.has(a.ref.locator)) continue
      out.push({...archiveSession(a), key: a.owner ?? null, foundBy: a.owner === undefined ? 'none' : 'trajectory', sortAt: a.start ?? a.at})
    }
    for (const o of this.orphans) {
      if (claimed.has(o.ref.locator)) continue
      out.push({sessionId: o.id, where: 'orphan', transcript: o.ref, ended: 'orphaned', key: o.owner ?? null, foundBy: o.owner === undefined ? 'none' : 'trajectory', sortAt: timeOf(o.header) ?? 0})
    }
    out.sort((x, y) => x.sortAt - y.sortAt)
    return out.map(({sortAt: _s, ...s}) => s)
  }
}

function archiveSession(a: Arch): Omit<KeySession, 'foundBy'> {
  return {
    // A header is file content: an id that could not name a file (`../x`) gives way to the one in the file's name.
    sessionId: a.header && isSafeSessionId(a.header.id) ? a.header.id : a.name.slice(0, a.name.indexOf('.jsonl')),
    where: a.kind === 'reset' ? 'reset-archive' : 'deleted-archive',
    transcript: a.ref,
    ended: a.kind === 'reset' ? 'reset' : 'deleted',
    endedAt: new Date(a.at).toISOString(),
  }
}

type IndexStore = Pick<SessionStore, 'findEntry' | 'transcriptOf' | 'readRows'>
type SourceFor = (isOrphan: (name: string) => boolean) => LineageSource

interface IndexFacts {
  key: string
  entry: SessionEntry
}

/**
 * The index facts every lineage needs, entry by entry (a large index is never parsed whole for this): each key's
 * current session, every session start, and which live-named transcripts no entry names (orphans).
 */
async function indexFacts(store: IndexStore, source: SourceFor): Promise<{keys: IndexFacts[]; index: LineageIndex}> {
  const rows = await store.readRows(
    (key, e): IndexFacts & {file?: string} => ({
      key,
      entry: {
        sessionId: e.sessionId,
        updatedAt: e.updatedAt,
        ...(e.sessionFile === undefined ? {} : {sessionFile: e.sessionFile}),
        ...(e.sessionStartedAt === undefined ? {} : {sessionStartedAt: e.sessionStartedAt}),
        ...(e.previousSessionId === undefined ? {} : {previousSessionId: e.previousSessionId}),
      },
      file: typeof e.sessionFile === 'string' ? e.sessionFile.slice(Math.max(e.sessionFile.lastIndexOf('/'), e.sessionFile.lastIndexOf('\\')) + 1) : undefined,
    }),
    {omit: ['skillsSnapshot', 'systemPromptReport']},
  )
  // A live-named transcript is an orphan when no entry names it by sessionId (with or without a topic) or sessionFile.
  const referenced = new Set<string>()
  const starts: number[] = []
  for (const r of rows.values()) {
    if (r.file) referenced.add(r.file)
    if (typeof r.entry.sessionId === 'string') referenced.add(r.entry.sessionId)
    if (typeof r.entry.sessionStartedAt === 'number') starts.push(r.entry.sessionStartedAt)
  }
  const isOrphan = (name: string) => !referenced.has(name) && !referenced.has(name.replace(/(-topic-.*)?\.jsonl$/, ''))
  const index = await LineageIndex.build(source(isOrphan), starts)
  return {keys: [...rows.values()].map(({file: _f, ...k}) => k), index}
}

/** SessionStore.sessionsOf for the JSON layout and its twin: the lineage of one key over the store's archive source. */
export async function lineageOf(store: IndexStore, key: string, source: SourceFor): Promise<KeySession[]> {
  const found = await store.findEntry(key)
  const {keys, index} = await indexFacts(store, source)
  // The key's start must be the one among the counted starts (rivalNearer discounts it): take its entry from the same
  // read of the index, not from findEntry's, which an OpenClaw write in between could have changed.
  const entry = found ? (keys.find((k) => k.key === found.storedKey)?.entry ?? found.entry) : undefined
  return index.lineage(key, found && entry ? {entry, ref: store.transcriptOf(entry, found.storedKey)} : undefined)
}

/**
 * SessionStore.allSessions for the JSON layout and its twin: every key's lineage (index order), each transcript once
 * (under the first key that claims it), then the archives and orphans no key claims, under the key their sidecar
 * names (a deleted key's) or none.
 */
export async function allSessionsOf(store: IndexStore, source: SourceFor): Promise<AgentSession[]> {
  const {keys, index} = await indexFacts(store, source)
  const out: AgentSession[] = []
  const claimed = new Set<string>()
  // The keys' lineages are independent reads (each may read its live transcript's header): a few at a time, then
  // claimed in index order, as one after the other would.
  const lineages: KeySession[][] = new Array(keys.length)
  let next = 0
  await Promise.all(
    Array.from({length: Math.min(16, keys.length)}, async () => {
      while (next < keys.length) {
        const i = next++
        const {key, entry} = keys[i]
        lineages[i] = typeof entry.sessionId === 'string' ? await index.lineage(key, {entry, ref: store.transcriptOf(entry, key)}) : []
      }
    }),
  )
  for (const [i, {key}] of keys.entries()) {
    for (const s of lineages[i]) {
      if (claimed.has(s.transcript.locator)) continue
      claimed.add(s.transcript.locator)
      out.push({...s, key})
    }
  }
  out.push(...index.unclaimed(claimed))
  return out
}
