// Transcripts no index entry references: an entry's own file under another name, empty leftovers to archive, and
// conversations to re-attach under the key OpenClaw uses for explicit session ids.
import {lookupContextWindow} from '../../../config/config.js'
import {NotRegularFileError} from '../../../os/safe-open.js'
import {finiteNumber} from '../../../util/values.js'
import {isEntryObject} from '../../file/index-scan.js'
import {tailTranscript} from '../../file/transcript.js'
import {isSafeSessionId} from '../../session-id.js'
import {buildExplicitSessionKey} from '../../session-key.js'
import type {SessionEntry} from '../../types.js'
import type {StoreContext} from '../context.js'
import {finding} from '../finding.js'
import type {PlannedFinding} from '../types.js'
import {archiveEmptyOrphan} from './repairs.js'
import type {FileInfo} from './scan.js'
import {inspectTranscriptSync, type TranscriptInspection} from './transcript-scan.js'
import {notAFile} from './transcripts.js'

/** What the entry checks learned that the orphan checks need (file/entries.ts). */
export interface IndexFacts {
  /** Base names of the transcripts index entries point at. */
  referenced: Set<string>
  /** Entries whose transcript is missing, by sessionId: an orphan carrying that id is their file under another name. */
  missingBySid: Map<string, {f: PlannedFinding; stored: unknown}>
  /** The first key of each session id in the index. */
  firstKeyBySid: Map<string, string>
}

export async function checkOrphans(c: StoreContext, {referenced, missingBySid, firstKeyBySid}: IndexFacts): Promise<void> {
  const {scan, out, opts} = c
  const data = scan.data
  const agentId = scan.agentId
  // Orphans can only be told apart once the index is known.
  if (!data && (scan.storeError || scan.readError)) return
  const orphans = scan.transcripts.filter((f) => !referenced.has(f.name))
  if (orphans.length === 0) return
  if (opts.cheap) {
    for (const o of orphans) out.push(finding({id: o.size === 0 ? 'orphan-transcript-empty' : 'orphan-transcript', severity: o.size === 0 ? 'info' : 'warn', agentId, path: o.path, message: 'Transcript not referenced by any index entry. Run "clawkit doctor" for details.'}))
    return
  }
  const inspections = orphans.map((o) => {
    try {
      return inspectTranscriptSync(o.path, {deep: opts.deep, size: o.size})
    } catch (error) {
      if (error instanceof NotRegularFileError) out.push(notAFile(agentId, error))
      return undefined
    }
  })
  const explicitTaken = new Set(Object.keys(data ?? {}))
  for (let i = 0; i < orphans.length; i++) {
    const o = orphans[i]
    const ins = inspections[i]
    if (!ins) continue
    const headerId = typeof ins.header?.id === 'string' ? ins.header.id.trim() : ''
    const missing = headerId ? missingBySid.get(headerId) : undefined
    if (missing?.f.key) {
      // The entry's own transcript under another name (renamed, or sessionFile edited): point the entry at it.
      missingBySid.delete(headerId)
      const {f, stored} = missing
      const key = f.key!
      f.message += ` A transcript with this session id exists under another name (${o.name}); --fix points the entry at it.`
      f.fixable = true
      f.action = `set sessionFile to ${o.path}`
      f.repair = {
        kind: 'index',
        storePath: scan.storePath,
        agentId,
        edit: (d, live) => {
          const e = d[key]
          if (!isEntryObject(e) || e.sessionId !== headerId || e.sessionFile !== stored) return false
          if (!live.isLiveTranscript(o.path)) return `${o.name} was moved or removed meanwhile; left the entry alone`
          if (live.references(o.path)) return `${o.name} is referenced by another entry now; left the entry alone`
          const holder = live.heldBy(o.path)
          if (holder) return `${o.name} is locked by another writer now (${holder}); left the entry alone. Run doctor again once it is done.`
          e.sessionFile = o.path
          return true
        },
      }
      continue
    }
    if (!ins.hasMessages) {
      out.push(
        finding({
          id: 'orphan-transcript-empty',
          severity: 'info',
          agentId,
          path: o.path,
          message: `Orphan transcript with no messages (${ins.size === 0 ? 'empty' : 'header only'}); no entry references it. --fix renames it to *.deleted.<ts> (kept, not deleted).`,
          action: 'rename to *.deleted.<ts>',
          repair: {kind: 'orphan-archive', storePath: scan.storePath, agentId, lockFiles: [o.path], run: (live) => archiveEmptyOrphan(o.path, live)},
        }),
      )
      continue
    }
    await planReindex(c, o, ins, explicitTaken, firstKeyBySid)
  }
}

async function planReindex(c: StoreContext, o: FileInfo, ins: TranscriptInspection, taken: Set<string>, keyBySid: Map<string, string>): Promise<void> {
  const {scan, out, state} = c
  const agentId = scan.agentId
  const headerId = typeof ins.header?.id === 'string' ? ins.header.id.trim() : ''
  const fromName = o.name.replace(/\.jsonl$/, '').replace(/-topic-.*$/, '')
  const sessionId = isSafeSessionId(headerId) ? headerId : isSafeSessionId(fromName) ? fromName : ''
  const baseMsg = `Orphan transcript with messages: no index entry references it, so it is invisible to "sessions list" and cannot be continued.`
  if (!sessionId) {
    out.push(finding({id: 'orphan-transcript', severity: 'warn', agentId, path: o.path, message: `${baseMsg} Neither its header nor its name gives a valid session id; add an entry by hand.`}))
    return
  }
  // A second row with an id the index already holds would be a duplicate-session-id: a reset of one rotates the other.
  const owner = keyBySid.get(sessionId)
  if (owner !== undefined) {
    out.push(finding({id: 'orphan-transcript', severity: 'warn', agentId, path: o.path, message: `${baseMsg} Its session id ${sessionId} belongs to entry "${owner}", which points at another file; attach this one by hand.`}))
    return
  }
  let key = buildExplicitSessionKey(agentId, sessionId)
  if (taken.has(key)) {
    const alt = buildExplicitSessionKey(agentId, fromName)
    if (!isSafeSessionId(fromName) || taken.has(alt)) {
      out.push(finding({id: 'orphan-transcript', severity: 'warn', agentId, path: o.path, message: `${baseMsg} The key ${key} is already taken by another entry; attach the file by hand.`}))
      return
    }
    key = alt
  }
  taken.add(key)
  let last = ins.lastAssistant
  if (!last && !ins.complete) {
    try {
      const tail = await tailTranscript(o.path, {limit: 1, count: (e) => e.type === 'message' && (e as {message?: {role?: string}}).message?.role === 'assistant'})
      const m = [...tail.entries].reverse().find((e) => e.type === 'message' && (e as {message?: {role?: string}}).message?.role === 'assistant') as {message?: Record<string, unknown>} | undefined
      if (m?.message) last = {provider: m.message.provider as string, model: m.message.model as string, usage: m.message.usage as Record<string, unknown>}
    } catch {}
  }
  const entry: SessionEntry = {sessionId, updatedAt: Math.round(ins.lastTimestamp ?? o.mtimeMs)}
  const started = typeof ins.header?.timestamp === 'string' ? Date.parse(ins.header.timestamp) : Number.NaN
  if (Number.isFinite(started)) entry.sessionStartedAt = started
  entry.sessionFile = o.path
  if (last?.provider) entry.modelProvider = last.provider
  if (last?.model) entry.model = last.model
  const u = last?.usage ?? {}
  const input = finiteNumber(u.input)
  if (input !== undefined) {
    const cacheRead = finiteNumber(u.cacheRead) ?? 0
    const cacheWrite = finiteNumber(u.cacheWrite) ?? 0
    entry.inputTokens = input
    entry.outputTokens = finiteNumber(u.output) ?? 0
    entry.cacheRead = cacheRead
    entry.cacheWrite = cacheWrite
    // OpenClaw's totalTokens is the prompt size of the last call: input plus cache, output excluded.
    entry.totalTokens = input + cacheRead + cacheWrite
    entry.totalTokensFresh = true
  }
  const ctx = lookupContextWindow(state.config, entry.model, entry.modelProvider)
  if (ctx) entry.contextTokens = ctx
  const finalKey = key
  out.push(
    finding({
      id: 'orphan-transcript',
      severity: 'warn',
      agentId,
      path: o.path,
      message: `${baseMsg} --fix re-attaches it as "${finalKey}" (the key OpenClaw uses for explicit session ids), with updatedAt, model and token figures from the file. It is never archived while it holds messages.`,
      action: `add index entry ${finalKey}`,
      key: finalKey,
      repair: {
        kind: 'index',
        storePath: scan.storePath,
        agentId,
        // Decided again under the store lock: a reset between its index write and its archive rename holds this
        // file's lock, so here the file is either still a free, live, unreferenced orphan, or visibly taken or moved.
        edit: (d, live) => {
          if (finalKey in d) return false
          if (!live.isLiveTranscript(o.path)) return `${o.name} was moved or removed meanwhile (a reset archives the transcript it rotates); nothing to re-attach`
          if (live.references(o.path, sessionId)) return `${o.name} or its session id ${sessionId} is in the index now; nothing to re-attach`
          const holder = live.heldBy(o.path)
          if (holder) return `${o.name} is locked by another writer now (${holder}; a reset may be archiving it); left alone. Run doctor again once it is done.`
          d[finalKey] = {...entry}
          live.added(finalKey, d[finalKey])
          return true
        },
      },
    }),
  )
}
