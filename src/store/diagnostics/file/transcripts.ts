// Checks of one transcript's contents: empty or header-only main sessions, a missing or foreign header, unparseable
// and torn lines, and a missing final newline that would glue OpenClaw's next append onto the last line.
import path from 'node:path'

import {resolveWorkspaceDir} from '../../../config/config.js'
import type {NotRegularFileError} from '../../../os/safe-open.js'
import type {SessionEntry} from '../../types.js'
import {hasNoTurns, type StoreContext} from '../context.js'
import {finding} from '../finding.js'
import type {PlannedFinding, Repair} from '../types.js'
import {repairTranscript} from './repairs.js'
import type {TranscriptInspection} from './transcript-scan.js'

/** Something other than a regular file where a transcript should be (a directory, a FIFO, a link to one). */
export function notAFile(agentId: string, error: NotRegularFileError, key?: string): PlannedFinding {
  return finding({id: 'transcript-not-a-file', severity: 'error', agentId, path: error.path, message: `${key ? `Transcript of "${key}"` : 'Transcript'} ${error.path} is ${error.kind}, not a regular file: clawkit and OpenClaw cannot read it. Move it out of the sessions directory (the session then reads as empty) or put the real transcript file in its place.`, key, details: {kind: error.kind}})
}

function workspaceFor(c: StoreContext, agentId: string): string {
  try {
    return resolveWorkspaceDir(c.state.stateDir, c.state.config, agentId, c.state.env)
  } catch {
    return c.state.stateDir
  }
}

export function checkTranscriptContents(c: StoreContext, key: string, entry: SessionEntry, file: string, ins: TranscriptInspection, main: boolean): void {
  const agentId = c.scan.agentId
  const repair = (): Repair => ({
    kind: 'transcript',
    run: async () => (await repairTranscript(file, {sessionId: String(entry.sessionId), cwd: workspaceFor(c, agentId)})).action,
  })
  if (ins.size === 0) {
    if (main && !hasNoTurns(entry)) c.out.push(finding({id: 'main-transcript-header-only', severity: 'warn', agentId, path: file, message: `Main session transcript for "${key}" is empty (0 bytes): session history may not be appending. OpenClaw rewrites it on the next turn.`, key}))
    return
  }
  if (ins.badHeader) {
    c.out.push(finding({id: 'transcript-bad-header', severity: 'error', agentId, path: file, message: `Transcript of "${key}" does not start with a session header: OpenClaw treats the file as empty and would start it over on the next turn. --fix copies it to <file>.bak.<ts> and writes a header (id ${entry.sessionId}) above the existing lines.`, action: 'back up, then add a session header', key, repair: repair()}))
  } else if (typeof ins.header?.id === 'string' && ins.header.id !== entry.sessionId) {
    c.out.push(finding({id: 'transcript-header-mismatch', severity: 'warn', agentId, path: file, message: `Transcript of "${key}" has header id ${ins.header.id} but the entry's sessionId is ${entry.sessionId}: the file may belong to another session. Check it; "clawkit sessions reset ${key}" starts a fresh transcript and archives this one.`, key, details: {headerId: ins.header.id, sessionId: entry.sessionId}}))
  }
  if (ins.badLines.length > 0) {
    c.out.push(finding({id: 'transcript-bad-lines', severity: 'warn', agentId, path: file, message: `Transcript of "${key}" has ${ins.badLines.length} unparseable line(s) (first at line ${ins.badLines[0].line || '?'}); readers skip them. --fix copies the file to <file>.bak.<ts> and rewrites it without them (every parseable line kept byte for byte).`, action: 'back up, then drop unparseable lines', key, details: {lines: ins.badLines.slice(0, 20).map((l) => l.line)}, repair: ins.badHeader ? undefined : repair()}))
  }
  if (ins.tornTail) {
    c.out.push(finding({id: 'transcript-torn-line', severity: 'warn', agentId, path: file, message: `Transcript of "${key}" ends with a torn line (${ins.tornTail.length} bytes, an interrupted write); the next append would be glued onto it. --fix moves those bytes into <file>.bak.<ts> and cuts them off.`, action: 'move the torn line to <file>.bak.<ts>', key, repair: ins.badHeader || ins.badLines.length > 0 ? undefined : repair()}))
  } else if (ins.missingFinalNewline) {
    c.out.push(finding({id: 'transcript-no-final-newline', severity: 'warn', agentId, path: file, message: `Transcript of "${key}" does not end with a newline: OpenClaw's next append would be glued onto the last line and corrupt it. --fix appends the newline.`, action: 'append "\\n"', key, repair: ins.badHeader || ins.badLines.length > 0 ? undefined : repair()}))
  }
  if (main && ins.complete && ins.lineCount <= 1 && !ins.badHeader && !hasNoTurns(entry)) {
    c.out.push(finding({id: 'main-transcript-header-only', severity: 'warn', agentId, path: file, message: `Main session transcript for "${key}" has only its header line: session history may not be appending. Check that OpenClaw can write ${path.dirname(file)}.`, key}))
  }
}
