// The human output of `clawkit message send`: its result as text (the command chooses when to print it).
import {formatSendLine, type MessageSendResult} from '../../channels/send.js'

export function renderSend(r: MessageSendResult): string {
  const p = r.payload
  if (p.dryRun) {
    const lines = [`[dry-run] would send via ${r.channel} to ${p.to}; nothing was sent or written.`]
    for (const req of p.requests ?? []) {
      lines.push(`${req.method} ${req.url}${req.note ? `   (${req.note})` : ''}`)
      for (const [k, v] of Object.entries(req.headers)) lines.push(`  ${k}: ${v}`)
      if (req.body !== undefined) lines.push(`  ${JSON.stringify(req.body)}`)
    }
    lines.push(`Session: ${p.session.sessionKey}${p.session.exists ? '' : ' (would be created)'}`)
    for (const w of p.warnings ?? []) lines.push(`Warning: ${w}`)
    return lines.join('\n')
  }
  const lines = [p.duplicate ? `Already sent (idempotency key ${p.idempotencyKey}); not sent again.` : formatSendLine(r)]
  if (p.mirrored && !p.duplicate) lines.push(`Mirrored to ${p.mirrored.sessionKey}${p.mirrored.created ? ' (new session)' : ''}${p.mirrored.duplicate ? ' (already recorded)' : ''}`)
  return lines.join('\n')
}
