// Which transcripts a key has had (SessionStore.sessionsOf) in the JSON layout and its in-memory twin: the live one, and
// the `.reset.` / `.deleted.` archives found by what they hold, never by their names alone. An archive names only its
// own sessionId (its header); the key it served is found from, in order of strength: OpenClaw's trajectory sidecar
// (`<sid>.trajectory.jsonl`, whose events carry sessionKey), the key's topic in the file name, the entry's
// previousSessionId, and the reset chain: a reset archives the old transcript under the reset's time and gives the new
// one a header of that same time, so an archive whose suffix time is the start of a session of this key was its
// predecessor. Archives another key claims are never taken.
import {normalizeSessionKey, transcriptTopicId} from './session-key.js'
import {isSafeSessionId} from './transcript.js'
import type {TranscriptHeader} from './transcript-types.js'
import type {KeySession, SessionEntry, SessionStore, TranscriptRef} from './types.js'

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

/**
 * The key's sessions, oldest first, the live one last (when the key has an entry). `rivalStarts`: when the other keys'
 * current sessions started (their sessionStartedAt): an archive whose time lies nearer one of them than this key's
 * session start is that key's predecessor, not ours (two keys reset in the same seconds).
 */
export async function fileLineage(src: LineageSource, key: string, current: {entry: SessionEntry; ref: TranscriptRef} | undefined, rivalStarts: readonly number[] = []): Promise<KeySession[]> {
  const want = normalizeSessionKey(key)
  const topic = transcriptTopicId(key)
  interface Arch extends ArchiveCandidate {
    kind: 'reset' | 'deleted'
    at: number
    header?: TranscriptHeader
    start?: number
    owner?: string
  }
  const all: Arch[] = []
  for (const c of await src.archives()) {
    const p = parseArchiveName(c.name)
    if (!p) continue
    const header = await src.header(c.ref)
    const owner = header ? await src.sidecarKey(header.id) : undefined
    all.push({...c, kind: p.kind, at: p.at, header, start: timeOf(header), owner: owner === undefined ? undefined : normalizeSessionKey(owner)})
  }
  const taken = new Map<Arch, KeySession['foundBy']>()
  const free = (a: Arch) => a.owner === undefined && !taken.has(a)
  for (const a of all) {
    if (a.owner === want) taken.set(a, 'trajectory')
    else if (a.owner === undefined && topic !== undefined && a.name.includes(`-topic-${encodeURIComponent(topic)}.jsonl.`)) taken.set(a, 'topic')
  }
  const prev = current?.entry.previousSessionId
  if (typeof prev === 'string') for (const a of all) if (free(a) && a.header?.id === prev) taken.set(a, 'previous-session-id')
  // Walk back from every session already known: the archive made by the reset that started it.
  const liveHeader = current?.ref.exists ? await src.header(current.ref) : undefined
  const starts: number[] = []
  const liveStart = timeOf(liveHeader) ?? (typeof current?.entry.sessionStartedAt === 'number' ? current.entry.sessionStartedAt : undefined)
  if (liveStart !== undefined) starts.push(liveStart)
  for (const a of taken.keys()) if (a.start !== undefined) starts.push(a.start)
  while (starts.length > 0) {
    const s = starts.pop()!
    let best: Arch | undefined
    for (const a of all) {
      if (!free(a) || a.kind !== 'reset' || Math.abs(a.at - s) > RESET_CHAIN_TOLERANCE_MS) continue
      if (rivalStarts.some((r) => Math.abs(a.at - r) < Math.abs(a.at - s))) continue
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
  for (const o of await src.orphans()) {
    const header = await src.header(o.ref)
    const id = header && isSafeSessionId(header.id) ? header.id : o.name.slice(0, -'.jsonl'.length)
    if (current && !current.ref.exists && !reattach && header?.id === current.entry.sessionId) {
      reattach = o.ref
      continue
    }
    const owner = await src.sidecarKey(id)
    const foundBy = owner !== undefined ? (normalizeSessionKey(owner) === want ? 'trajectory' : undefined) : topic !== undefined && o.name.endsWith(`-topic-${encodeURIComponent(topic)}.jsonl`) ? 'topic' : undefined
    if (!foundBy) continue
    orphans.push({sessionId: id, where: 'orphan', transcript: o.ref, ended: 'orphaned', foundBy, sortAt: timeOf(header) ?? 0})
  }
  const out: (KeySession & {sortAt: number})[] = [...taken].map(([a, foundBy]) => ({
    // A header is file content: an id that could not name a file (`../x`) gives way to the one in the file's name.
    sessionId: a.header && isSafeSessionId(a.header.id) ? a.header.id : a.name.slice(0, a.name.indexOf('.jsonl')),
    where: a.kind === 'reset' ? 'reset-archive' : 'deleted-archive',
    transcript: a.ref,
    ended: a.kind === 'reset' ? 'reset' : 'deleted',
    endedAt: new Date(a.at).toISOString(),
    foundBy,
    sortAt: a.start ?? a.at,
  }))
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

/**
 * SessionStore.sessionsOf for the JSON layout and its twin: the index facts fileLineage needs (the key's current
 * session, the other keys' session starts, which live-named transcripts no entry names), then the lineage over the
 * store's own archive source.
 */
export async function lineageOf(store: Pick<SessionStore, 'findEntry' | 'transcriptOf' | 'readRows'>, key: string, source: (isOrphan: (name: string) => boolean) => LineageSource): Promise<KeySession[]> {
  const found = await store.findEntry(key)
  const current = found ? {entry: found.entry, ref: store.transcriptOf(found.entry, found.storedKey)} : undefined
  // The other keys' session starts, entry by entry (a large index is never parsed whole for this).
  const rows = await store.readRows((k, e) => ({
    start: k !== found?.storedKey && typeof e.sessionStartedAt === 'number' ? e.sessionStartedAt : undefined,
    id: typeof e.sessionId === 'string' ? e.sessionId : undefined,
    file: typeof e.sessionFile === 'string' ? e.sessionFile.slice(Math.max(e.sessionFile.lastIndexOf('/'), e.sessionFile.lastIndexOf('\\')) + 1) : undefined,
  }))
  const rivals = [...rows.values()].map((r) => r.start).filter((t): t is number => t !== undefined)
  // A live-named transcript is an orphan when no entry names it by sessionId (with or without a topic) or sessionFile.
  const referenced = new Set<string>()
  for (const r of rows.values()) {
    if (r.file) referenced.add(r.file)
    if (r.id) referenced.add(r.id)
  }
  const isOrphan = (name: string) => !referenced.has(name) && !referenced.has(name.replace(/(-topic-.*)?\.jsonl$/, ''))
  return fileLineage(source(isOrphan), key, current, rivals)
}
