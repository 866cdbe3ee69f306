// `sessions export`: a session (or every session of its key) as Markdown, one self-contained HTML page, or the JSONL as
// stored (export-formats.ts), to stdout or a file (export-sinks.ts). Here: which sessions, and where the output may
// go. Transcripts are streamed line by line through the store (SessionReader.readLines) and written as they are
// rendered, so a 1 GiB transcript is never held in memory. Nothing written leaves without the config's credentials
// removed (redactKnownSecrets); --redact also masks credential-shaped strings (text/redact.ts PATTERNS).
import fs from 'node:fs'
import path from 'node:path'

import {fileError, UsageError} from '../errors.js'
import {transcriptFileName} from '../store/session-id.js'
import type {ReadableState} from '../store/state.js'
import {secretRedactor, textRedactor} from '../text/redact.js'
import {type ExportWhat, HtmlDoc, MarkdownDoc, writeJsonl} from './export-formats.js'
import {fileSink, ReaderGone, type Sink, stdoutSink} from './export-sinks.js'
import {keyLineage, type ReadSession} from './lineage.js'
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
  /** Where the document goes instead of stdout or `out` (a page of it in memory: pagedSink). */
  sink?: Sink
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

/**
 * The key and the sessions to export: the current one, or every one the key has had. The sessionId of an archived
 * session exports that archive (resolveForReading has the order), or with --include-archived its key's whole lineage.
 */
async function sessionsToExport(state: ReadableState, target: string, opts: ExportOptions): Promise<ExportWhat> {
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

export async function exportSession(state: ReadableState, target: string, opts: ExportOptions): Promise<SessionsExportResult> {
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
    const sink = opts.sink ?? (opts.out === undefined ? stdoutSink() : await fileSink(opts.out, opts.force ?? false))
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
