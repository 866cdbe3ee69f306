// The documented rules of `sessions search`, restated for the tests independently of src/: what of a transcript entry
// is searched (as which role and kind), and when a text holds a hit.
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

export function searchedTexts(e: any): {role: string; kind: string; text: string}[] {
  const out: {role: string; kind: string; text: string}[] = []
  if (!isObj(e)) return out
  const text = (c: any) => (typeof c === 'string' ? c : Array.isArray(c) && c.some((b) => b?.type === 'text') ? c.filter((b) => b?.type === 'text').map((b) => b.text).join('\n') : undefined)
  const leaves = (v: any): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(leaves) : isObj(v) ? Object.values(v).flatMap(leaves) : [])
  if (e.type === 'message' && isObj(e.message)) {
    const m = e.message
    if ((m.role === 'user' || m.role === 'assistant') && text(m.content) !== undefined) out.push({role: m.role, kind: 'text', text: text(m.content)!})
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      for (const b of m.content) if (b?.type === 'toolCall' && leaves(b.arguments).length > 0) out.push({role: 'tool', kind: 'toolCall', text: leaves(b.arguments).join('\n')})
    }
    if (m.role === 'toolResult' && text(m.content) !== undefined) out.push({role: 'tool', kind: 'toolResult', text: text(m.content)!})
  }
  if (e.type === 'compaction' && typeof e.summary === 'string') out.push({role: 'summary', kind: 'compaction', text: e.summary})
  if (e.type === 'branch_summary' && typeof e.summary === 'string') out.push({role: 'summary', kind: 'branchSummary', text: e.summary})
  return out
}

/** Whether `text` holds the literal: smart case, and with `word` not inside a longer word (letters, digits, marks, _). */
export function holds(text: string, pattern: string, opts: {word?: boolean} = {}): boolean {
  const ci = pattern === pattern.toLowerCase()
  if (!opts.word) return ci ? text.toLowerCase().includes(pattern) : text.includes(pattern)
  const esc = pattern.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  const w = '[\\p{L}\\p{N}\\p{M}\\p{Co}\\p{Pc}]'
  return new RegExp(`(?<!${w})${esc}(?!${w})`, ci ? 'ui' : 'u').test(text)
}
