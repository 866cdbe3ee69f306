// The three shapes of an export: the JSONL as stored, Markdown, and one self-contained HTML page. Each walks the
// sessions an export selected (ExportWhat) line by line through the store and writes as it renders.

import type {TranscriptEntry} from '../store/transcript-types.js'
import type {SessionReader} from '../store/types.js'
import type {Sink} from './export-sinks.js'
import {localTime} from './format.js'
import {type HistoryEntry, toHistoryEntry} from './history.js'
import {addUsage, emptyUsage, type ReadSession, WHERE_TEXT} from './lineage.js'
import {isHistoryMessage} from './messages.js'
import type {ArchivedSessionInfo} from './resolve.js'

/** What an export writes: the key, and the sessions in order. */
export interface ExportWhat {
  key: string | null
  agentId: string
  store: SessionReader
  model?: string
  sessions: ReadSession[]
  archived?: ArchivedSessionInfo
}

/** The Key line of an archive nothing ties to a key any more. */
const NO_KEY = 'none (nothing ties this archived session to a key any more)'

/** `.reset. archive, reset 2026-11-26 14:51:58`: what the header of an archived session's export says of it. */
function archivedText(a: ArchivedSessionInfo): string {
  return `${WHERE_TEXT[a.where] ?? a.where}, ${a.ended}${a.endedAt ? ` ${localTime(a.endedAt)}` : ''} (read-only)`
}

/** Tool results longer than this are cut in md and html (the jsonl export keeps every byte). */
const MAX_TOOL_RESULT = 4000

/** The lines as stored, one per line, secrets removed: a line whose value holds none is byte for byte the original. */
export async function writeJsonl(store: SessionReader, s: ReadSession, sink: Sink, clean: (s: string) => string): Promise<number> {
  if (!s.transcript.exists) return 0
  let n = 0
  for await (const l of store.readLines(s.transcript)) {
    if (l.value && l.value.type !== 'session' && isHistoryMessage(l.value as unknown as TranscriptEntry)) n++
    await sink.write(`${clean(l.raw)}\n`)
  }
  return n
}

function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? ''
  } catch {
    return '[nested too deeply to show]'
  }
}

function shortened(text: string): {text: string; cut: number} {
  return text.length > MAX_TOOL_RESULT ? {text: text.slice(0, MAX_TOOL_RESULT), cut: text.length - MAX_TOOL_RESULT} : {text, cut: 0}
}

/** What md and html share: walking the entries of each session and the totals of the footer. */
abstract class Doc {
  protected totals = emptyUsage()
  protected count = 0
  constructor(
    protected sink: Sink,
    protected clean: (s: string) => string,
  ) {}

  abstract begin(what: ExportWhat): Promise<void>
  abstract end(): Promise<void>
  protected abstract sessionHead(s: ReadSession): string
  protected abstract entry(e: HistoryEntry): string

  async session(store: SessionReader, s: ReadSession, heads: boolean): Promise<number> {
    if (heads) await this.sink.write(this.sessionHead(s))
    let n = 0
    if (!s.transcript.exists) return 0
    for await (const l of store.readLines(s.transcript)) {
      const v = l.value as unknown as TranscriptEntry | undefined
      if (!v || (v.type as string) === 'session') continue
      if (isHistoryMessage(v)) n++
      if (v.type === 'message') addUsage(this.totals, (v as {message?: {usage?: unknown}}).message?.usage)
      const out = this.entry(toHistoryEntry(v))
      if (out) await this.sink.write(out)
    }
    this.count += n
    return n
  }
}

function fence(text: string, lang = ''): string {
  let f = '```'
  while (text.includes(f)) f += '`'
  return `${f}${lang}\n${text}\n${f}\n`
}

export class MarkdownDoc extends Doc {
  async begin(w: ExportWhat): Promise<void> {
    const cur = w.sessions.at(-1)
    const lines = [
      `# Session ${this.clean(w.key ?? w.sessions[0]?.sessionId ?? '')}`,
      '',
      `- Key: ${w.key === null ? NO_KEY : `\`${this.clean(w.key)}\``}`,
      ...(w.archived ? [`- Archived: ${archivedText(w.archived)}`] : []),
      `- Agent: ${this.clean(w.agentId)}`,
      `- Session id${w.sessions.length > 1 ? 's' : ''}: ${w.sessions.map((s) => `\`${s.sessionId}\``).join(', ')}`,
      ...(w.model ? [`- Model: ${this.clean(w.model)}`] : []),
      `- Exported: ${localTime(new Date().toISOString())}`,
      ...(cur ? [`- Transcript: \`${this.clean(cur.transcript.locator)}\``] : []),
      '',
    ]
    await this.sink.write(`${lines.join('\n')}\n`)
  }

  protected sessionHead(s: ReadSession): string {
    return `\n## Session \`${s.sessionId}\` (${WHERE_TEXT[s.where] ?? s.where})\n\n`
  }

  protected entry(e: HistoryEntry): string {
    const at = localTime(e.timestamp)
    const c = this.clean
    switch (e.type) {
      case 'message': {
        if (e.toolResult) {
          const r = shortened(c(e.text ?? ''))
          return `### Tool result: ${c(e.toolResult.toolName)} (${e.toolResult.isError ? 'error' : 'ok'}) \u00b7 ${at}\n\n${fence(r.text)}${r.cut ? `\n_(${r.cut} more characters not shown; the jsonl export has them all)_\n` : ''}\n`
        }
        const who = e.role === 'user' ? 'User' : e.role === 'assistant' ? 'Assistant' : (e.role ?? 'Message')
        const model = e.role === 'assistant' && e.model ? ` (${c(e.provider ? `${e.provider}/${e.model}` : e.model)})` : ''
        const parts = [`### ${c(who)}${model} \u00b7 ${at}\n`]
        if (e.thinking) parts.push(`> **Thinking**\n>\n${c(e.thinking).split('\n').map((l) => `> ${l}`).join('\n')}\n`)
        if (e.text) parts.push(`${c(e.text)}\n`)
        for (const call of e.toolCalls ?? []) parts.push(`**Tool call:** \`${c(call.name)}\`\n\n${fence(c(jsonText(call.arguments)), 'json')}`)
        if (e.stopReason === 'error' || e.stopReason === 'aborted') parts.push(`_(${e.stopReason}${e.errorMessage ? `: ${c(e.errorMessage)}` : ''})_\n`)
        return `${parts.join('\n')}\n`
      }
      case 'compaction':
        return `### Compaction summary \u00b7 ${at}${e.tokensBefore === undefined ? '' : ` (${e.tokensBefore} tokens before)`}\n\n${c(e.summary ?? '')}\n\n`
      case 'branch_summary':
        return `### Branch summary \u00b7 ${at}\n\n${c(e.summary ?? '')}\n\n`
      case 'custom_message':
        return `### ${c(e.customType ?? 'custom')} \u00b7 ${at}\n\n${c(e.text ?? '')}\n\n`
      case 'reset':
        return `\n---\n\n**Reset${e.reason ? ` (${c(e.reason)})` : ''} \u00b7 ${at}**: the model context starts again here.\n\n`
      default:
        return ''
    }
  }

  async end(): Promise<void> {
    const t = this.totals
    await this.sink.write(`\n---\n\n${this.count} messages \u00b7 tokens: ${t.input} in, ${t.output} out, ${t.cacheRead} cache read, ${t.cacheWrite} cache write \u00b7 cost $${t.costUsd.toFixed(4)}\n`)
  }
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[ch]!)
}

/** Text with its ``` fences as code blocks, everything escaped. */
function htmlText(text: string): string {
  const out: string[] = []
  const parts = text.split(/^(`{3,})[^\n]*$/m)
  // split with one group: text, fence, text, fence, ... ; odd text chunks are inside a fence.
  let inside = false
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 1) {
      inside = !inside
      continue
    }
    const chunk = parts[i].replace(/^\n|\n$/g, '')
    if (chunk === '') continue
    out.push(inside ? `<pre><code>${escapeHtml(chunk)}</code></pre>` : `<div class="text">${escapeHtml(chunk)}</div>`)
  }
  return out.join('')
}

const CSS = `:root{color-scheme:light dark;--bg:#fff;--fg:#1d1d1f;--muted:#6e6e73;--user:#e8f0fe;--asst:#f5f5f7;--tool:#fbf7ea;--border:#d2d2d7;--code:#f0f0f2}
@media (prefers-color-scheme:dark){:root{--bg:#161618;--fg:#ececf0;--muted:#9a9aa2;--user:#1e2a44;--asst:#232326;--tool:#2d2a1d;--border:#3a3a3f;--code:#0f0f11}}
body{background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;max-width:900px;margin:0 auto;padding:24px}
header{border-bottom:1px solid var(--border);margin-bottom:16px}header dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;color:var(--muted);font-size:13px}
dt{font-weight:600}dd{margin:0;word-break:break-all}
.msg{border:1px solid var(--border);border-radius:10px;padding:10px 14px;margin:12px 0;break-inside:avoid}
.user{background:var(--user);margin-left:10%}.assistant{background:var(--asst);margin-right:10%}.tool{background:var(--tool);font-size:13px}.note{background:transparent;border-style:dashed}
.meta{color:var(--muted);font-size:12px;margin-bottom:4px}.role{font-weight:600;color:var(--fg)}
.text{white-space:pre-wrap;word-wrap:break-word}pre{background:var(--code);padding:8px;border-radius:6px;overflow:auto;white-space:pre-wrap}
details>summary{cursor:pointer;color:var(--muted)}.thinking{color:var(--muted);font-style:italic}
.boundary{text-align:center;color:var(--muted);margin:28px 0;border-top:2px dashed var(--border);padding-top:6px}
footer{border-top:1px solid var(--border);margin-top:24px;color:var(--muted);font-size:13px}
@media print{body{max-width:none;padding:0;font-size:11pt}.msg{border-color:#999}details::details-content{content-visibility:visible !important;display:block !important}details>summary{color:#000}}`

export class HtmlDoc extends Doc {
  async begin(w: ExportWhat): Promise<void> {
    const c = (s: string) => escapeHtml(this.clean(s))
    const row = (k: string, v: string) => `<dt>${k}</dt><dd>${v}</dd>`
    const title = w.key ?? w.sessions[0]?.sessionId ?? ''
    await this.sink.write(
      '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">' +
        // Nothing may load: no scripts, no fetches, no images from anywhere; the page needs none.
        `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">` +
        '<meta name="viewport" content="width=device-width,initial-scale=1">' +
        `<title>Session ${c(title)}</title><style>${CSS}</style></head><body>\n<header><h1>Session ${c(title)}</h1><dl>` +
        row('Key', w.key === null ? escapeHtml(NO_KEY) : c(w.key)) +
        (w.archived ? row('Archived', escapeHtml(archivedText(w.archived))) : '') +
        row('Agent', c(w.agentId)) +
        row(w.sessions.length > 1 ? 'Session ids' : 'Session id', w.sessions.map((s) => escapeHtml(s.sessionId)).join(', ')) +
        (w.model ? row('Model', c(w.model)) : '') +
        row('Exported', escapeHtml(localTime(new Date().toISOString()))) +
        '</dl></header>\n<main>\n',
    )
  }

  protected sessionHead(s: ReadSession): string {
    return `<div class="boundary">Session ${escapeHtml(s.sessionId)} (${escapeHtml(WHERE_TEXT[s.where] ?? s.where)})</div>\n`
  }

  protected entry(e: HistoryEntry): string {
    const c = (s: string) => escapeHtml(this.clean(s))
    const t = (s: string) => htmlText(this.clean(s))
    const meta = (who: string) => `<div class="meta"><span class="role">${who}</span> \u00b7 <time datetime="${escapeHtml(e.timestamp)}">${escapeHtml(localTime(e.timestamp))}</time></div>`
    switch (e.type) {
      case 'message': {
        if (e.toolResult) {
          const r = shortened(this.clean(e.text ?? ''))
          const note = r.cut ? `<p class="meta">${r.cut} more characters not shown; the jsonl export has them all.</p>` : ''
          return `<section class="msg tool" data-entry="${escapeHtml(e.id)}">${meta(`tool result ${c(e.toolResult.toolName)} (${e.toolResult.isError ? 'error' : 'ok'})`)}<details><summary>result</summary><pre><code>${escapeHtml(r.text)}</code></pre>${note}</details></section>\n`
        }
        const role = e.role === 'user' ? 'user' : e.role === 'assistant' ? 'assistant' : 'note'
        const model = e.role === 'assistant' && e.model ? ` (${c(e.provider ? `${e.provider}/${e.model}` : e.model)})` : ''
        const body = [
          e.thinking ? `<details class="thinking"><summary>thinking</summary>${t(e.thinking)}</details>` : '',
          e.text ? t(e.text) : '',
          ...(e.toolCalls ?? []).map((call) => `<details class="call"><summary>tool call ${c(call.name)}</summary><pre><code>${c(jsonText(call.arguments))}</code></pre></details>`),
          e.stopReason === 'error' || e.stopReason === 'aborted' ? `<p class="meta">(${escapeHtml(e.stopReason)}${e.errorMessage ? `: ${c(e.errorMessage)}` : ''})</p>` : '',
        ].join('')
        return `<section class="msg ${role}" data-entry="${escapeHtml(e.id)}">${meta(c(e.role ?? 'message') + model)}${body}</section>\n`
      }
      case 'compaction':
        return `<section class="msg note" data-entry="${escapeHtml(e.id)}">${meta(`compaction summary${e.tokensBefore === undefined ? '' : ` (${e.tokensBefore} tokens before)`}`)}${t(e.summary ?? '')}</section>\n`
      case 'branch_summary':
        return `<section class="msg note" data-entry="${escapeHtml(e.id)}">${meta('branch summary')}${t(e.summary ?? '')}</section>\n`
      case 'custom_message':
        return `<section class="msg note" data-entry="${escapeHtml(e.id)}">${meta(c(e.customType ?? 'custom'))}${t(e.text ?? '')}</section>\n`
      case 'reset':
        return `<div class="boundary">Reset${e.reason ? ` (${c(e.reason)})` : ''} \u00b7 ${escapeHtml(localTime(e.timestamp))}: the model context starts again here</div>\n`
      default:
        return ''
    }
  }

  async end(): Promise<void> {
    const t = this.totals
    await this.sink.write(`</main>\n<footer>${this.count} messages \u00b7 tokens: ${t.input} in, ${t.output} out, ${t.cacheRead} cache read, ${t.cacheWrite} cache write \u00b7 cost $${t.costUsd.toFixed(4)}</footer>\n</body></html>\n`)
  }
}
