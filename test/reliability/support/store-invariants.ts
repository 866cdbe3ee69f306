// Invariants of one agent's sessions dir after concurrent or killed writers, shared by the concurrency suite and the
// crash trials' doctor writer: nothing lost, nothing invented, nothing live archived, everything parses, no lock left.
import fs from 'node:fs'
import path from 'node:path'

import {LOCK_SCRATCH_RE} from '../../../src/store/lock.js'
import {scanJsonl} from './jsonl.js'

export interface StoreInvariantOptions {
  /** The index before the writers ran. */
  before: Record<string, any>
  /** Keys the writers may legitimately create (a new key outside this set is a phantom row). */
  allowedNewKeys?: (key: string) => boolean
  /** Tolerate a torn last line in live transcripts (a killed append); a complete line that does not parse is never ok. */
  allowTornTail?: boolean
  /** Tolerate lock files (a killed writer's, left for doctor); scratch and temp files are checked by the caller then. */
  allowLocks?: boolean
}

export interface StoreInvariantReport {
  problems: string[]
  /** Keys of the "before" index that are gone. */
  lost: string[]
  /** New keys nobody was allowed to create, with where their transcript is now. */
  phantom: string[]
  /** `.deleted.` archives of a transcript some row still points at. */
  deletedLive: string[]
  /** Rows whose transcript is not a live file. */
  dangling: string[]
}

/** The transcript a row points at, as clawkit resolves it (sessionFile in this dir, else `<sessionId>.jsonl`). */
export function rowTranscript(sessionsDir: string, entry: any): string {
  const stored = typeof entry?.sessionFile === 'string' ? entry.sessionFile : ''
  // A path into another state dir (the fixture's /home/user/.openclaw/...) resolves to the file of that name here.
  if (stored && path.isAbsolute(stored)) return path.join(sessionsDir, path.basename(stored))
  if (stored) return path.resolve(sessionsDir, stored)
  return path.join(sessionsDir, `${entry?.sessionId}.jsonl`)
}

export function checkStoreInvariants(sessionsDir: string, opts: StoreInvariantOptions): StoreInvariantReport {
  const report: StoreInvariantReport = {problems: [], lost: [], phantom: [], deletedLive: [], dangling: []}
  const names = fs.readdirSync(sessionsDir)
  let index: Record<string, any>
  try {
    index = JSON.parse(fs.readFileSync(path.join(sessionsDir, 'sessions.json'), 'utf8'))
  } catch (error) {
    report.problems.push(`sessions.json does not parse: ${(error as Error).message}`)
    return report
  }
  for (const key of Object.keys(opts.before)) if (!Object.hasOwn(index, key)) report.lost.push(key)
  const referenced = new Set<string>()
  for (const [key, entry] of Object.entries(index)) {
    const file = rowTranscript(sessionsDir, entry)
    referenced.add(path.basename(file))
    if (!Object.hasOwn(opts.before, key) && !opts.allowedNewKeys?.(key)) {
      const base = path.basename(file)
      const archived = names.filter((n) => n.startsWith(`${base}.`))
      report.phantom.push(`${key} -> ${base}${fs.existsSync(file) ? '' : ' (missing)'}${archived.length > 0 ? ` (archived as ${archived.join(', ')})` : ''}`)
    }
    let st: fs.Stats | undefined
    try {
      st = fs.lstatSync(file)
    } catch {}
    if (!st?.isFile()) report.dangling.push(`${key} -> ${path.basename(file)}`)
  }
  for (const n of names) {
    const m = /^(.+\.jsonl)\.deleted\./.exec(n)
    if (m && referenced.has(m[1])) report.deletedLive.push(n)
  }
  for (const n of names) {
    const p = path.join(sessionsDir, n)
    if (n.endsWith('.lock') && !opts.allowLocks) report.problems.push(`lock left: ${n}`)
    if (LOCK_SCRATCH_RE.test(n) && !opts.allowLocks) report.problems.push(`lock scratch file left: ${n}`)
    // A `.tmp` is a write cut short by a kill; doctor reports it and never reads it.
    if (n.startsWith('sessions.json.bak.') && !n.endsWith('.tmp')) {
      try {
        JSON.parse(fs.readFileSync(p, 'utf8'))
      } catch {
        report.problems.push(`backup ${n} does not parse`)
      }
    }
    if (/\.jsonl(\.(reset|deleted|bak)\..*)?$/.test(n) && !n.includes('.trajectory') && fs.lstatSync(p).isFile()) {
      const scan = scanJsonl(p)
      if (scan.badComplete.length > 0) report.problems.push(`${n}: unparseable line(s) ${scan.badComplete.join(',')}`)
      // A .bak. of a torn line holds just those bytes: it is not a transcript.
      if (scan.tail !== '' && !/\.bak\./.test(n) && !(opts.allowTornTail && referenced.has(n))) report.problems.push(`${n}: torn last line`)
    }
  }
  if (report.lost.length > 0) report.problems.push(`lost rows: ${report.lost.join(', ')}`)
  if (report.phantom.length > 0) report.problems.push(`phantom rows: ${report.phantom.join('; ')}`)
  if (report.deletedLive.length > 0) report.problems.push(`live transcript archived as .deleted.: ${report.deletedLive.join(', ')}`)
  if (report.dangling.length > 0) report.problems.push(`rows without a live transcript: ${report.dangling.join(', ')}`)
  return report
}
