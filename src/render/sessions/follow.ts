// The human output of `sessions history --follow` after the tail: each landed entry as history shows it, the changes
// of a key's session as boundary lines, and with --all every line labelled with its key.
import {paint} from '../color.js'
import {printable} from '../safe.js'
import type {SessionsFollowLine} from '../../sessions/follow.js'
import {renderEntry, safeEntry} from './history.js'

/** The text of one follow line (ending in a newline), or '' for one a person is not shown (`start`: the tail was). */
export function renderFollowLine(line: SessionsFollowLine, opts: {label: boolean; color: boolean}): string {
  const c = opts.color
  let lines: string[]
  switch (line.kind) {
    case 'entry':
      lines = renderEntry(safeEntry(line.entry), c)
      break
    case 'unreadable':
      lines = [paint(c, 'yellow', `! line ${line.line} of the transcript cannot be read (${line.reason}); it is kept as it is ("clawkit doctor" reports it).`)]
      break
    case 'session': {
      const id = printable(line.sessionId)
      const text =
        line.event === 'reset'
          ? `reset: session ${id} (was ${printable(line.previousSessionId ?? '?')})`
          : line.event === 'new'
            ? `${opts.label ? 'new session' : `${printable(line.key)} appeared: session`} ${id}`
            : line.event === 'deleted'
              ? `${printable(line.key)} was deleted (its session was ${id}); waiting for it to come back`
              : ''
      lines = text ? [paint(c, 'yellow', `\u2550\u2550\u2550\u2550 ${text} \u2550\u2550\u2550\u2550`)] : []
      break
    }
  }
  if (lines.length === 0) return ''
  const label = opts.label ? `${paint(c, 'cyan', printable(line.key))} ` : ''
  return `${lines.map((l) => `${label}${l}`).join('\n')}\n`
}
