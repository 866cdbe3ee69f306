// Delivery mirror: create/refresh the target session entry under the store lock and append OpenClaw's
// "delivery-mirror" assistant message to its transcript, at most once per idempotency key.
import path from 'node:path'

import {resolveWorkspaceDir} from '../config/config.js'
import {ClawkitError} from '../errors.js'
import {makeHeader} from '../store/entries.js'
import {findEntryIn} from '../store/entry-lookup.js'
import {randomUUID} from '../store/random-id.js'
import type {OpenClawState} from '../store/state.js'
import type {SessionEntry, SessionStore, TranscriptRef} from '../store/types.js'
import type {OutboundRoute} from './targets.js'
import type {ChannelId} from './types.js'

const ZERO_USAGE = {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: {input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0}}

function mediaName(url: string): string | undefined {
  const clean = url.trim().split('#')[0].split('?')[0]
  try {
    const base = path.basename(new URL(clean).pathname)
    try {
      return decodeURIComponent(base) || undefined
    } catch {
      return base || undefined
    }
  } catch {
    const base = path.basename(clean)
    return base && base !== '/' && base !== '.' ? base : undefined
  }
}

/** OpenClaw's resolveMirroredTranscriptText: the text, then the media file names on their own line. */
export function mirrorText(text: string | undefined, mediaUrls: string[]): string | undefined {
  const trimmed = (text ?? '').trim()
  const urls = mediaUrls.filter((u) => u && u.trim())
  if (urls.length > 0) {
    const names = urls.map(mediaName).filter((n): n is string => Boolean(n))
    const suffix = names.length > 0 ? names.join(', ') : 'media'
    return trimmed ? `${trimmed}\n${suffix}` : suffix
  }
  return trimmed || undefined
}

export interface MessageMeta {
  channel: string
  accountId?: string
  chatId?: string
  chatType?: string
  providerMessageId?: string
  providerMessageIds?: string[]
  threadId?: string | number
}

export interface MirrorResult {
  agentId: string
  sessionKey: string
  sessionId: string
  /** Transcript entry id of the mirror (the existing one when the key was already mirrored). */
  entryId: string
  /** The session entry did not exist and was created. */
  created: boolean
  /** The idempotency key was already in the transcript: nothing was appended. */
  duplicate: boolean
  sessionFile: string
}

export interface PriorMirror {
  entryId: string
  meta?: MessageMeta
}

/** The mirror already in the session's transcript for this idempotency key (OpenClaw's transcriptFindIdempotencyKey). */
export async function findPriorMirror(state: OpenClawState, agentId: string, transcript: TranscriptRef, key: string): Promise<PriorMirror | undefined> {
  const hit = await state.store(agentId).findIdempotencyKey(transcript, key)
  return hit && {entryId: hit.entryId, meta: hit.meta as MessageMeta | undefined}
}

function mergeOrigin(existing: Record<string, unknown> | undefined, next: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = {...existing}
  for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== null && v !== '') merged[k] = v
  return merged
}

/** The fields OpenClaw's outbound path (ensureOutboundSessionEntry + delivery-field normalization) writes for a route. */
function routeFields(channel: ChannelId, route: OutboundRoute): {origin: Record<string, unknown>; delivery: Partial<SessionEntry>; group: Partial<SessionEntry>} {
  const origin: Record<string, unknown> = {provider: channel, surface: channel, chatType: route.chatType, from: route.from, to: route.to, accountId: route.accountId}
  if (route.threadId !== undefined) origin.threadId = route.threadId
  const deliveryContext: Record<string, unknown> = {channel, to: route.to, accountId: route.accountId}
  if (route.threadId !== undefined) deliveryContext.threadId = route.threadId
  const delivery: Partial<SessionEntry> = {deliveryContext, lastChannel: channel, lastTo: route.to, lastAccountId: route.accountId}
  if (route.threadId !== undefined) delivery.lastThreadId = route.threadId
  const group: Partial<SessionEntry> = route.chatType === 'direct' ? {} : {channel, groupId: route.groupId, displayName: `${channel}:${route.groupId}`}
  return {origin, delivery, group}
}

export interface MirrorParams {
  state: OpenClawState
  agentId: string
  sessionKey: string
  channel: ChannelId
  route: OutboundRoute
  text?: string
  mediaUrls: string[]
  idempotencyKey: string
  meta: MessageMeta
  now?: () => Date
}

/** Where a session's transcript is (or would be created), without writing anything. */
export async function lookupSession(state: OpenClawState, agentId: string, sessionKey: string): Promise<{entry?: SessionEntry; transcript?: TranscriptRef}> {
  const store = state.store(agentId)
  const found = await store.findEntry(sessionKey)
  if (!found) return {}
  return {entry: found.entry, transcript: store.transcriptOf(found.entry, sessionKey)}
}

export async function mirrorDelivery(p: MirrorParams): Promise<MirrorResult | undefined> {
  const text = mirrorText(p.text, p.mediaUrls)
  if (!text) return undefined
  const {state, agentId, sessionKey} = p
  const store = state.store(agentId)
  const now = p.now ?? (() => new Date())
  // webhook is not an OpenClaw channel: its sends are recorded, but it never becomes a session's delivery route.
  const fields = p.channel === 'webhook' ? undefined : routeFields(p.channel, p.route)
  const {entry, created} = await store.update((data) => {
    const found = findEntryIn(data, sessionKey)
    const ts = now().getTime()
    if (!found) {
      const sessionId = randomUUID()
      const e: SessionEntry = {
        sessionId,
        updatedAt: ts,
        sessionFile: store.newSessionFile(sessionId, sessionKey),
        chatType: p.route.chatType,
        ...fields?.group,
        ...fields?.delivery,
        ...(fields ? {origin: fields.origin} : {}),
      }
      data[sessionKey] = e
      return {entry: e, created: true}
    }
    const e = found.entry
    // mergeSessionEntry: updatedAt never goes backwards; origin merges field by field.
    e.updatedAt = Math.max(typeof e.updatedAt === 'number' ? e.updatedAt : 0, ts)
    if (fields) {
      e.origin = mergeOrigin(e.origin as Record<string, unknown> | undefined, fields.origin)
      // An existing route is kept: a one-off send must not redirect where the agent's replies go.
      if (!e.lastChannel && !e.deliveryContext) Object.assign(e, fields.delivery)
    }
    if (typeof e.sessionFile !== 'string' || !e.sessionFile.trim()) e.sessionFile = store.transcriptOf(e, found.storedKey).locator
    return {entry: {...e}, created: false}
  })
  let current = entry
  for (let round = 1; ; round++) {
    const result = await appendMirror(p, store, current, created, text, now)
    if (!('rotatedTo' in result)) return result
    if (round >= MAX_MIRROR_ROUNDS) {
      throw new ClawkitError(`Session ${sessionKey} changed ${MAX_MIRROR_ROUNDS} times while the mirror waited for its transcript lock; the message was sent but not mirrored.`, {code: 'E_SESSION_ROTATING'})
    }
    current = result.rotatedTo
  }
}

/** Lock-then-recheck rounds when resets keep rotating the session before the mirror holds its transcript. */
const MAX_MIRROR_ROUNDS = 20

async function appendMirror(p: MirrorParams, store: SessionStore, entry: SessionEntry, created: boolean, text: string, now: () => Date): Promise<MirrorResult | {rotatedTo: SessionEntry}> {
  const {state, agentId, sessionKey} = p
  const transcript = store.transcriptOf(entry, sessionKey)
  const header = makeHeader(entry.sessionId, resolveWorkspaceDir(state.stateDir, state.config, agentId, state.env), now())
  return store.withTranscript(transcript, async (tx) => {
    // A reset may have rotated the session between the index update and this lock, and archived this transcript:
    // appending would recreate it under the old name as an orphan. Follow the row, as an agent turn does.
    const found = await store.findEntry(sessionKey)
    if (found && store.transcriptOf(found.entry, sessionKey).locator !== transcript.locator) return {rotatedTo: found.entry}
    const prior = await tx.findIdempotencyKey(p.idempotencyKey)
    if (prior) return {agentId, sessionKey, sessionId: entry.sessionId, entryId: prior.entryId, created, duplicate: true, sessionFile: transcript.locator}
    const message = {
      role: 'assistant',
      content: [{type: 'text', text}],
      api: 'openai-responses',
      provider: 'openclaw',
      model: 'delivery-mirror',
      usage: ZERO_USAGE,
      stopReason: 'stop',
      timestamp: now().getTime(),
      idempotencyKey: p.idempotencyKey,
      openclawMessageMeta: p.meta,
    }
    const res = await tx.append([{type: 'message', message}], {header, now})
    return {agentId, sessionKey, sessionId: entry.sessionId, entryId: res.entries[0].id, created, duplicate: false, sessionFile: transcript.locator}
  })
}
