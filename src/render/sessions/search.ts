// The human output of `clawkit sessions search`: its result as text (the command chooses when to print it).
import {localTime} from '../../sessions/format.js'
import {type SearchHit, type SessionsSearchResult, snippetView} from '../../sessions/search.js'
import {paint} from '../color.js'
import {hintInContext, printable} from '../safe.js'

/**
 * The snippet on word boundaries, `…` where text was left out before or after it, its matches highlighted (on a
 * terminal) and made inert: control and bidi characters escaped.
 */
function marked(h: SearchHit, color: boolean): string {
  const view = snippetView(h) ?? {start: 0, end: h.snippet.length, cutBefore: false, cutAfter: false}
  let out = view.cutBefore ? '…' : ''
  let at = view.start
  for (const m of h.matches) {
    if (m.start < view.start || m.end > view.end) continue
    out += printable(h.snippet.slice(at, m.start)) + paint(color, 'yellow', printable(h.snippet.slice(m.start, m.end)))
    at = m.end
  }
  return `${out}${printable(h.snippet.slice(at, view.end))}${view.cutAfter ? '…' : ''}`
}

export function renderSearch(r: SessionsSearchResult, color: boolean): string {
  const out: string[] = []
  for (const h of r.hits) {
    const what = h.kind === 'text' ? h.role : `${h.role} ${h.kind}${h.toolName ? ` ${h.toolName}` : ''}`
    const head = [h.time ? localTime(h.time) : '-', `${h.host === undefined ? '' : `${h.host}:`}${h.agentId}/${h.key ?? '(no key)'}`, what, `${h.sessionId}${h.where === 'live' || h.where === 'window' ? '' : ` (${h.where})`}`, `line ${h.line}`]
    out.push(paint(color, 'cyan', printable(head.join('  '))))
    out.push(`  ${marked(h, color)}`)
  }
  const scope = `${r.transcripts} transcript${r.transcripts === 1 ? '' : 's'} (${r.agents.map(printable).join(', ')}${r.includeArchived ? ', archives included' : ''})${r.hosts ? ` on ${r.hosts.length} host(s) of the fleet replica` : ''}`
  if (r.count === 0) out.push(`No match for "${printable(r.pattern)}" in ${scope}.`)
  else out.push(`${r.count} hit${r.count === 1 ? '' : 's'}${r.hits.length < r.count ? `, newest ${r.hits.length} shown (--limit)` : ''} in ${scope}.`)
  if (r.badLines > 0) out.push(paint(color, 'yellow', `! ${r.badLines} unreadable line(s) hold the pattern but could not be searched; ${hintInContext('run "clawkit doctor"')}.`))
  return `${out.join('\n')}\n`
}
