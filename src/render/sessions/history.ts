// The human output of `clawkit sessions history`: its result as text (the command chooses when to print it).
import {localTime} from '../../sessions/format.js'
import {HISTORY_MESSAGE_TYPES, type HistoryEntry, type HistorySession, type SessionsHistoryResult} from '../../sessions/history.js'
import {WHERE_TEXT} from '../../sessions/lineage.js'
import {colorEnabled, paint} from '../color.js'
import {hintInContext, printable, printableLines} from '../safe.js'

const MAX_TEXT = 2000
const MAX_TOOL = 300

/** Transcript text is untrusted: a tool call without arguments has none, and any text may hold escape sequences. */
function shorten(s: unknown, max: number): string {
  const one = printableLines(typeof s === 'string' ? s : s === undefined ? '' : String(s)).replace(/\s+$/, '')
  return one.length > max ? `${one.slice(0, max)}… (${one.length - max} more chars)` : one
}

/** Bodies, tool calls and notes sit this far under their `[time] role:` line. */
const INDENT = '    '

/** A body on its head line when it is one line; else under it, every line indented like tool calls. */
function withBody(head: string, body: string): string[] {
  if (body === '') return [head]
  if (!body.includes('\n')) return [`${head} ${body}`]
  return [head, ...body.split('\n').map((l) => (l === '' ? '' : `${INDENT}${l}`))]
}

/** Every short field a line shows, escaped for the terminal. */
export function safeEntry(e: HistoryEntry): HistoryEntry {
  const f = (v: unknown) => (typeof v === 'string' ? printable(v) : v)
  return {
    ...e,
    role: f(e.role) as string | undefined,
    provider: f(e.provider) as string | undefined,
    model: f(e.model) as string | undefined,
    stopReason: f(e.stopReason) as string | undefined,
    errorMessage: f(e.errorMessage) as string | undefined,
    customType: f(e.customType) as string | undefined,
    thinkingLevel: f(e.thinkingLevel) as string | undefined,
    toolResult: e.toolResult && {...e.toolResult, toolName: printable(String(e.toolResult.toolName))},
    toolCalls: e.toolCalls?.map((c) => ({...c, name: printable(String(c.name))})),
  }
}

export function renderHistory(r: SessionsHistoryResult): string {
  const c = colorEnabled()
  const out: string[] = [paint(c, 'cyan', `Session ${printable(r.key ?? '(no key)')} (${printable(String(r.sessionId))})${r.host === undefined ? '' : ` on host ${printable(r.host)}`}`), paint(c, 'dim', `Transcript: ${printable(r.sessionFile)}`)]
  const a = r.archived
  if (a) out.push(paint(c, 'yellow', `Archived session ${printable(a.sessionId)} (${WHERE_TEXT[a.where] ?? a.where}, ${a.ended}${a.endedAt ? ` ${printable(localTime(a.endedAt))}` : ''}): read-only`))
  if (!r.transcriptExists) {
    out.push('No transcript yet: the session has no completed turn.')
    return `${out.join('\n')}\n`
  }
  if (r.truncated) out.push(paint(c, 'dim', `… earlier messages not shown (showing the last ${r.limit}; use --limit)`))
  // Several sessions may start at one index (sessions without entries): each gets its boundary line.
  const sessions = r.sessions ?? []
  r.entries.forEach((e, i) => {
    for (const s of sessions) if (s.start === i) out.push(...sessionBoundary(r, s, c))
    out.push(...renderEntry(safeEntry(e), c))
  })
  for (const s of sessions) if (s.start >= r.entries.length) out.push(...sessionBoundary(r, s, c))
  if (r.offset) out.push(paint(c, 'dim', `… the ${r.offset} newest message(s) after these not shown (--offset ${r.offset})`))
  // A just-reset session has only its header (or a model change): say so rather than end after the two header lines.
  if (!r.entries.some((e) => HISTORY_MESSAGE_TYPES.has(e.type))) out.push(paint(c, 'dim', r.offset ? 'no messages before those' : 'no messages yet'))
  if (r.badLines.length > 0) {
    out.push(paint(c, 'yellow', `! ${r.badLines.length} unreadable line(s) in this part of the transcript (${r.badLines.map((b) => b.reason).join(', ')}); ${hintInContext('run "clawkit doctor"')}.`))
  }
  return `${out.join('\n')}\n`
}

/** The line that opens a session in --include-archived output; the first session shown gets only its name. */
function sessionBoundary(r: SessionsHistoryResult, s: HistorySession, c: boolean): string[] {
  const list = r.sessions ?? []
  const prev = list[list.indexOf(s) - 1]
  const head = prev ? `${prev.ended === 'deleted' ? 'deleted' : 'reset'}${prev.endedAt ? ` ${printable(localTime(prev.endedAt))}` : ''}: ` : ''
  return [paint(c, 'yellow', `\u2550\u2550\u2550\u2550 ${head}session ${printable(s.sessionId)} (${WHERE_TEXT[s.where] ?? s.where}) \u2550\u2550\u2550\u2550`)]
}

/** An entry's lines (none for types history does not show); `e` already escaped (safeEntry). */
export function renderEntry(e: HistoryEntry, c: boolean): string[] {
  const t = paint(c, 'dim', `[${printable(localTime(e.timestamp))}]`)
  switch (e.type) {
    case 'message': {
      if (e.role === 'toolResult' && e.toolResult) {
        const status = e.toolResult.isError ? paint(c, 'red', 'error') : 'ok'
        return withBody(`${t} ${paint(c, 'gray', `tool result ${e.toolResult.toolName} (${status})`)}:`, shorten(e.text ?? '', MAX_TOOL))
      }
      const who = e.role === 'user' ? paint(c, 'green', 'user') : e.role === 'assistant' ? paint(c, 'cyan', 'assistant') : (e.role ?? 'message')
      const model = e.role === 'assistant' && e.model ? paint(c, 'dim', ` (${e.provider ? `${e.provider}/` : ''}${e.model})`) : ''
      const lines = withBody(`${t} ${who}${model}:`, e.text ? shorten(e.text, MAX_TEXT) : '')
      if (e.thinking) lines.push(...withBody(`${INDENT}thinking:`, shorten(e.thinking, MAX_TOOL)).map((l, i) => paint(c, 'dim', i === 0 || l === '' ? l : `${INDENT}${l}`)))
      for (const call of e.toolCalls ?? []) lines.push(paint(c, 'gray', `${INDENT}→ ${call.name} ${shorten(JSON.stringify(call.arguments), MAX_TOOL)}`))
      if (e.stopReason === 'aborted' || e.stopReason === 'error') lines.push(paint(c, 'red', `${INDENT}(${e.stopReason}${e.errorMessage ? `: ${e.errorMessage}` : ''})`))
      return lines
    }
    case 'compaction':
      return [`${t} ${paint(c, 'yellow', `── compaction (${e.tokensBefore ?? '?'} tokens before) ──`)}`, ...shorten(e.summary ?? '', MAX_TEXT).split('\n').map((l) => (l === '' ? '' : `${INDENT}${l}`))]
    case 'branch_summary':
      return withBody(`${t} ${paint(c, 'yellow', '── branch summary ──')}`, shorten(e.summary ?? '', MAX_TEXT))
    case 'custom_message':
      return withBody(`${t} ${paint(c, 'gray', `custom (${e.customType ?? '?'})`)}:`, shorten(e.text ?? '', MAX_TEXT))
    case 'model_change':
      return [`${t} ${paint(c, 'dim', `model → ${e.provider}/${e.model}`)}`]
    case 'reset':
      return [`${t} ${paint(c, 'yellow', `\u2550\u2550\u2550\u2550 reset${e.reason ? ` (${printable(e.reason)})` : ''}: the model context starts again here \u2550\u2550\u2550\u2550`)}`]
    case 'thinking_level_change':
      return [`${t} ${paint(c, 'dim', `thinking → ${e.thinkingLevel}`)}`]
    default:
      return []
  }
}
