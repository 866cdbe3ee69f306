// `sessions export`: a session (or every session of its key) as Markdown, one self-contained HTML page, or the JSONL as
// stored. Transcripts are streamed line by line through the store (SessionStore.readLines) and written as they are
// rendered, so a 1 GiB transcript is never held in memory. Nothing written leaves without the config's credentials
// removed (redactKnownSecrets); --redact also masks credential-shaped strings (render/redact.ts PATTERNS).
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {fileError, isErrnoError, UsageError} from '../errors.js'
import {secretRedactor, textRedactor} from '../render/redact.js'
import type {OpenClawState} from '../store/state.js'
import {transcriptFileName} from '../store/transcript.js'
import type {TranscriptEntry} from '../store/transcript-types.js'
import type {SessionStore} from '../store/types.js'
import {localTime} from './format.js'
import {type HistoryEntry, isHistoryMessage, toHistoryEntry} from './history.js'
import {addUsage, emptyUsage, keyLineage, type ReadSession, WHERE_TEXT} from './lineage.js'
import {type ArchivedSessionInfo, resolveForReading} from './resolve.js'

export type ExportFormat = 'md' | 'html' | 'jsonl'

export interface ExportOptions {
  agent?: string
  format: ExportFormat
  /** A file (or, for jsonl with includeArchived, a directory: one file per session). Stdout when undefined. */
  out?: string
  force?: boolean
  includeArchived?: boolean
  redact?: boolean
}

export interface ExportedSession {
  sessionId: string
  where: ReadSession['where']
  transcript: string
  messages: number
  /** The file this session went to when --out named a directory (jsonl). */
  file?: string
}

/** The `sessions export --json` document (only with --out: stdout carries the export otherwise). */
export interface SessionsExportResult {
  /** With --store-url: the fleet replica's host the session was exported from. */
  host?: string
  /** Null only for an archived session nothing ties to a key any more. */
  key: string | null
  agentId: string
  format: ExportFormat
  /** Where it was written: a file, a directory (jsonl per session), or null for stdout. */
  out: string | null
  sessions: ExportedSession[]
  messages: number
  bytes: number
  redacted: boolean
  /** Asked by the sessionId of an archived session (no key's current one): which one, read-only. */
  archived?: ArchivedSessionInfo
}

/** Tool results longer than this are cut in md and html (the jsonl export keeps every byte). */
const MAX_TOOL_RESULT = 4000

/** How much a file sink gathers before one write. */
const FLUSH_BYTES = 1024 * 1024

interface Sink {
  write(s: string): Promise<void>
  close(): Promise<void>
  /** Give up: a file sink removes its temporary file and leaves the destination as it was. */
  abort?(): Promise<void>
  bytes: number
}

/** The reader of stdout went away (`| head`): the export stops quietly, as every command does on EPIPE. */
class ReaderGone extends Error {}

/** Whether fd 1 is a regular file (`> FILE`). */
function stdoutIsFile(): boolean {
  try {
    return fs.fstatSync(1).isFile()
  } catch {
    return false
  }
}

/**
 * Stdout, honouring backpressure: a slow pipe never makes the export buffer the whole document. A regular file is
 * written with write(2) on fd 1 directly: Node's stream for it writes synchronously but defers each write's callback to
 * a tick that runs only once the export yields to the event loop, which a read-render-write loop over a file never
 * does, so every chunk stayed referenced until the end (a 317 MB transcript peaked at 403 MB of RSS).
 */
function stdoutSink(): Sink {
  if (stdoutIsFile()) {
    return batched(async (text) => {
      const buf = Buffer.from(text)
      for (let off = 0; off < buf.length; ) off += fs.writeSync(1, buf, off, buf.length - off)
    }, 64 * 1024)
  }
  let failed: NodeJS.ErrnoException | undefined
  const fail = (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? new ReaderGone() : e)
  const put = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (failed) return reject(fail(failed))
      const ok = process.stdout.write(text, (e) => {
        if (e) {
          failed = e
          reject(fail(e))
        }
      })
      if (ok) return resolve()
      const done = (e?: NodeJS.ErrnoException) => {
        process.stdout.off('drain', done)
        process.stdout.off('error', done)
        if (e) reject(fail(e))
        else resolve()
      }
      process.stdout.on('drain', done)
      process.stdout.on('error', done)
    })
  // Gathered into 64 KiB writes: one write per message would be ~600 000 for a 1 GiB transcript.
  return batched(put, 64 * 1024)
}

/** A sink that gathers writes into batches of about `limit` bytes before `put`; `close` puts the rest. */
function batched(put: (text: string) => Promise<void>, limit: number, extra: Partial<Pick<Sink, 'close' | 'abort'>> = {}): Sink {
  let pending: string[] = []
  let pendingBytes = 0
  const flush = async () => {
    if (pending.length === 0) return
    const text = pending.join('')
    pending = []
    pendingBytes = 0
    await put(text)
  }
  const sink: Sink = {
    bytes: 0,
    write: async (s) => {
      const n = Buffer.byteLength(s)
      sink.bytes += n
      pending.push(s)
      pendingBytes += n
      if (pendingBytes >= limit) await flush()
    },
    close: async () => {
      try {
        await flush()
      } catch (error) {
        await extra.abort?.()
        throw error
      }
      await extra.close?.()
    },
    ...(extra.abort ? {abort: extra.abort} : {}),
  }
  return sink
}

/**
 * A file written beside its destination and moved into place when complete: a failed export never leaves half a file
 * under the name asked for. Without `force`, the final step is a hard link, which fails rather than replace a file
 * that appeared meanwhile.
 */
async function fileSink(file: string, force: boolean): Promise<Sink> {
  if (!force && fs.existsSync(file)) throw new UsageError(`${file} already exists; nothing was written. Pass --force to overwrite it, or choose another --out.`, 'E_EXISTS')
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`)
  // The temp file is ours, not the user's: a failure names the file asked for, as the write it is.
  const asWrite = (error: unknown) => fileError(error, file, 'write')
  const fh = await fsp.open(tmp, 'wx', 0o600).catch((error: unknown) => {
    throw asWrite(error)
  })
  // One write per 1 MiB instead of one per message: a 1 GiB export is ~600 000 messages.
  const abort = async () => {
    await fh.close().catch(() => undefined)
    await fsp.rm(tmp, {force: true})
  }
  const close = async () => {
    try {
      await fh.sync()
      await fh.close()
      if (force) await fsp.rename(tmp, file)
      else {
        await fsp.link(tmp, file).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') throw new UsageError(`${file} already exists; nothing was written. Pass --force to overwrite it, or choose another --out.`, 'E_EXISTS')
          throw error
        })
        await fsp.unlink(tmp)
      }
    } catch (error) {
      throw isErrnoError(error) ? asWrite(error) : error
    } finally {
      await fsp.rm(tmp, {force: true})
    }
  }
  return batched((text) => fh.write(text).then(() => undefined), FLUSH_BYTES, {close, abort})
}

/** What an export writes: the key, and the sessions in order. */
interface ExportWhat {
  key: string | null
  agentId: string
  store: SessionStore
  model?: string
  sessions: ReadSession[]
  archived?: ArchivedSessionInfo
}

/**
 * The key and the sessions to export: the current one, or every one the key has had. The sessionId of an archived
 * session exports that archive (resolveForReading has the order), or with --include-archived its key's whole lineage.
 */
async function sessionsToExport(state: OpenClawState, target: string, opts: ExportOptions): Promise<ExportWhat> {
  if (opts.includeArchived) {
    const l = await keyLineage(state, target, {agent: opts.agent})
    const entry = l.key === null ? undefined : (await l.store.findEntry(l.key))?.entry
    return {key: l.key, agentId: l.agentId, store: l.store, model: modelOf(entry), sessions: l.sessions, ...(l.archived ? {archived: l.archived} : {})}
  }
  const t = await resolveForReading(state, target, {agent: opts.agent})
  if (t.archived) {
    // The key's entry describes its current session, not this one: no model is claimed for an archive.
    const {key: _k, ...session} = t.archived.session
    return {key: t.archived.key, agentId: t.archived.agentId, store: t.archived.store, sessions: [session], archived: t.archived.archived}
  }
  const s = t.current
  const store = state.storeFor(s.ref)
  const ref = store.transcriptOf(s.entry, s.key)
  return {key: s.key, agentId: s.agentId, store, model: modelOf(s.entry), sessions: [{sessionId: s.entry.sessionId, where: ref.location === 'sqlite' ? 'window' : 'live', transcript: ref, ended: 'current', foundBy: 'index'}]}
}

/** The Key line of an archive nothing ties to a key any more. */
const NO_KEY = 'none (nothing ties this archived session to a key any more)'

/** `.reset. archive, reset 2026-11-26 14:51:58`: what the header of an archived session's export says of it. */
function archivedText(a: ArchivedSessionInfo): string {
  return `${WHERE_TEXT[a.where] ?? a.where}, ${a.ended}${a.endedAt ? ` ${localTime(a.endedAt)}` : ''} (read-only)`
}

function modelOf(e: {model?: string; modelProvider?: string} | undefined): string | undefined {
  if (!e?.model) return undefined
  return e.modelProvider ? `${e.modelProvider}/${e.model}` : e.model
}

/**
 * Why --out cannot be written, before anything is read: a directory on its path that does not exist (a trailing `/`
 * names a directory itself), or a file where a directory belongs. Undefined when its directory is there.
 */
function outProblem(out: string): string | undefined {
  const dir = /[\\/]$/.test(out) ? out : path.dirname(out)
  let p = path.resolve(dir)
  let missing = false
  for (;;) {
    let st: fs.Stats
    try {
      st = fs.statSync(p)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fileError(error, p, 'read')
      // Walk up to what exists: a file there means "not a directory", else the directory is simply missing.
      if (code === 'ENOENT') missing = true
      if (path.dirname(p) === p) return `the directory ${dir} does not exist`
      p = path.dirname(p)
      continue
    }
    if (!st.isDirectory()) return `${p} is not a directory`
    return missing ? `the directory ${dir} does not exist` : undefined
  }
}

export async function exportSession(state: OpenClawState, target: string, opts: ExportOptions): Promise<SessionsExportResult> {
  const problem = opts.out === undefined ? undefined : outProblem(opts.out)
  if (problem) throw new UsageError(`Cannot write ${opts.out}: ${problem}. Nothing was written.`, problem.endsWith('does not exist') ? 'E_OUT_DIR_MISSING' : 'E_OUT_NOT_DIR', ['create the directory first, or choose another --out'])
  // Never into the state dir (compared by real path): OpenClaw would take the file for part of its store, and with
  // --force an export could replace a transcript or an index.
  if (opts.out !== undefined && state.contains(opts.out)) {
    throw new UsageError(`--out ${opts.out} is inside the state dir ${state.stateDir}; nothing was written. Export to a path outside it.`, 'E_EXPORT_OUT_INSIDE')
  }
  const what = await sessionsToExport(state, target, opts)
  const clean = opts.redact ? textRedactor() : secretRedactor()
  const perSession = opts.format === 'jsonl' && opts.includeArchived && opts.out !== undefined && fs.existsSync(opts.out) && fs.statSync(opts.out).isDirectory()
  const exported: ExportedSession[] = []
  let bytes = 0
  if (perSession) {
    for (const s of what.sessions) {
      // Ids come from file headers and database rows: one that could not name a file is refused, never joined.
      const file = path.join(opts.out!, transcriptFileName(s.sessionId))
      const sink = await fileSink(file, opts.force ?? false)
      let n: number
      try {
        n = await writeJsonl(what.store, s, sink, clean)
        await sink.close()
      } catch (error) {
        await sink.abort?.()
        throw error
      }
      bytes += sink.bytes
      exported.push({sessionId: s.sessionId, where: s.where, transcript: s.transcript.locator, messages: n, file})
    }
  } else {
    if (opts.out !== undefined && fs.existsSync(opts.out) && fs.statSync(opts.out).isDirectory()) {
      throw new UsageError(`--out ${opts.out} is a directory; name a file (a directory takes one file per session only with --format jsonl --include-archived).`, 'E_OUT_IS_DIR')
    }
    const sink = opts.out === undefined ? stdoutSink() : await fileSink(opts.out, opts.force ?? false)
    const doc = opts.format === 'jsonl' ? undefined : opts.format === 'md' ? new MarkdownDoc(sink, clean) : new HtmlDoc(sink, clean)
    try {
      await doc?.begin(what)
      for (const s of what.sessions) {
        const n = doc ? await doc.session(what.store, s, what.sessions.length > 1) : await writeJsonl(what.store, s, sink, clean)
        exported.push({sessionId: s.sessionId, where: s.where, transcript: s.transcript.locator, messages: n})
      }
      await doc?.end()
      await sink.close()
    } catch (error) {
      if (!(error instanceof ReaderGone)) {
        await sink.abort?.()
        throw error
      }
    }
    bytes = sink.bytes
  }
  return {
    key: what.key,
    agentId: what.agentId,
    format: opts.format,
    out: opts.out ?? null,
    sessions: exported,
    messages: exported.reduce((n, s) => n + s.messages, 0),
    bytes,
    redacted: Boolean(opts.redact),
    ...(what.archived ? {archived: what.archived} : {}),
  }
}

/** The lines as stored, one per line, secrets removed: a line whose value holds none is byte for byte the original. */
async function writeJsonl(store: SessionStore, s: ReadSession, sink: Sink, clean: (s: string) => string): Promise<number> {
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

  async session(store: SessionStore, s: ReadSession, heads: boolean): Promise<number> {
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

class MarkdownDoc extends Doc {
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

class HtmlDoc extends Doc {
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
