// The human output of `clawkit sessions lineage`: its result as text (the command chooses when to print it).
import {localTime} from '../../sessions/format.js'
import {type LineageSession, type SessionsLineageResult, WHERE_TEXT} from '../../sessions/lineage.js'
import {colorEnabled, paint} from '../color.js'
import {hintInContext, printable} from '../safe.js'

function ended(s: LineageSession): string {
  switch (s.ended) {
    case 'current':
      return 'still current'
    case 'reset-event':
      return `reset event${s.resetReason ? ` (${printable(s.resetReason)})` : ''}${s.endedAt ? ` at ${printable(localTime(s.endedAt))}` : ''}`
    default:
      return `${s.ended}${s.endedAt ? ` at ${printable(localTime(s.endedAt))}` : ''}`
  }
}

export function renderLineage(r: SessionsLineageResult): string {
  const c = colorEnabled()
  const of = r.key ?? `archived session ${r.archived?.sessionId ?? ''} (no key)`
  const out = [paint(c, 'cyan', `Lineage of ${printable(of)}${r.host === undefined ? '' : ` on host ${printable(r.host)}`}: ${r.sessions.length} session${r.sessions.length === 1 ? '' : 's'}, oldest first`)]
  if (r.archived && r.key !== null) out.push(paint(c, 'dim', `(asked by ${printable(r.archived.sessionId)}, an archived session of this key)`))
  r.sessions.forEach((s, i) => {
    out.push('')
    out.push(`${paint(c, 'bold', `${i + 1}. ${printable(s.sessionId)}${s.part ? ` part ${s.part}` : ''}`)}  ${paint(c, 'dim', WHERE_TEXT[s.where] ?? s.where)}`)
    out.push(`   transcript: ${printable(s.transcript)}${s.transcriptExists ? '' : ' (missing)'}`)
    out.push(`   messages:   ${s.messages}${s.firstMessageAt ? `, ${printable(localTime(s.firstMessageAt))} \u2192 ${printable(localTime(s.lastMessageAt))}` : ''}`)
    const u = s.usage
    out.push(`   tokens:     ${u.input} in, ${u.output} out, ${u.cacheRead} cache read, ${u.cacheWrite} cache write; cost $${u.costUsd.toFixed(4)}`)
    out.push(`   ended:      ${ended(s)}`)
    if (s.badLines > 0) out.push(paint(c, 'yellow', `   ! ${s.badLines} unreadable line(s); ${hintInContext('run "clawkit doctor"')}.`))
  })
  return `${out.join('\n')}\n`
}
