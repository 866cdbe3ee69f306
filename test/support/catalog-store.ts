// Test support for the local catalog: a generated JSON-era state dir whose transcripts hold every kind of line search
// and usage read (text, tool calls and results, summaries, calls with and without a recorded cost, unreadable lines,
// blank and CRLF lines, escapes, a torn tail), and the changes OpenClaw (or a person) makes between two queries: turns
// appended (sometimes torn), a transcript replaced or rewritten at its head, truncated, reset, an archive pruned, a key
// deleted, the index rewritten. Seeded, so that a failing run is replayed by its seed.
import fs from 'node:fs'
import path from 'node:path'

import {seeded} from './fleet-store.js'

export {seeded}

/** Words the texts are made of; the needles the tests ask for are among them, in several cases and spellings. */
const WORDS = ['alpha', 'zebra', 'Zebra', 'ZEBRA', 'zebras', 'café', 'cafe', 'kubeconfig', 'deploy', 'type', 'usage', 'naïve', '\u212Aelvin', 'kelvin', 'straße', 'Σίσυφος', '数据库', 'x', 'to', 'the', '"quoted"', 'a/b', '<tag>', 'tab\there', 'line\nbreak']
/**
 * Id-like words (the catalog keeps those as their spans' trigrams, tokens.ts isIdToken), holding the words above and
 * each other's pieces; a word of a text is one of them with the store's `idRate`.
 */
const ID_WORDS = ['zebra42deploy', 'Kube9f3aZEBRA', '20261207', 'req_9f3a0b1c2d', 'ZebraDeployAlphaKubeconfigUsage']

const hex = (rnd: () => number, n: number) => Array.from({length: n}, () => Math.floor(rnd() * 16).toString(16)).join('')
const uuid = (rnd: () => number) => `${hex(rnd, 8)}-${hex(rnd, 4)}-4${hex(rnd, 3)}-8${hex(rnd, 3)}-${hex(rnd, 12)}`

export type Op =
  | 'append'
  | 'appendTorn'
  | 'finishTorn'
  | 'badLine'
  | 'replace'
  | 'rewriteHead'
  | 'truncate'
  | 'reset'
  | 'pruneArchive'
  | 'deleteKey'
  | 'addKey'
  | 'touchIndex'
  | 'reorderIndex'

export const OPS: readonly Op[] = ['append', 'append', 'append', 'appendTorn', 'finishTorn', 'badLine', 'replace', 'rewriteHead', 'truncate', 'reset', 'pruneArchive', 'deleteKey', 'addKey', 'touchIndex', 'reorderIndex']

interface Entry {
  sessionId: string
  updatedAt: number
  sessionFile?: string
  sessionStartedAt?: number
}

export class GeneratedStore {
  private clock = Date.parse('2026-10-01T08:00:00.000Z')

  private constructor(
    readonly state: string,
    private readonly rnd: () => number,
    readonly agents: string[],
    private readonly idRate: number,
  ) {}

  /**
   * `idRate`: how often a word is id-like (0.002 by default: a search of a word held by such ids still reads few spans
   * back, so large stores are answered from the catalog; small ones are whatever the share).
   */
  static create(state: string, seed: number, opts: {agents?: string[]; keys?: number; lines?: number; idRate?: number} = {}): GeneratedStore {
    const g = new GeneratedStore(state, seeded(seed), opts.agents ?? ['main', 'work'], opts.idRate ?? 0.002)
    fs.mkdirSync(state, {recursive: true, mode: 0o700})
    fs.writeFileSync(
      path.join(state, 'openclaw.json'),
      JSON.stringify({
        agents: {list: g.agents.map((id, i) => ({id, ...(i === 0 ? {default: true} : {})}))},
        models: {providers: {mockant: {baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-x', api: 'anthropic-messages', models: [{id: 'priced', cost: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}}]}}},
      }),
    )
    for (const agent of g.agents) {
      fs.mkdirSync(g.dir(agent), {recursive: true, mode: 0o700})
      const index: Record<string, Entry> = {}
      for (let k = 0; k < (opts.keys ?? 3); k++) g.newKey(agent, index, opts.lines ?? 12)
      g.writeIndex(agent, index)
    }
    return g
  }

  dir(agent: string): string {
    return path.join(this.state, 'agents', agent, 'sessions')
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)]
  }

  private tick(): number {
    this.clock += 1000 + Math.floor(this.rnd() * 60_000)
    return this.clock
  }

  private text(n = 3 + Math.floor(this.rnd() * 12)): string {
    return Array.from({length: n}, () => this.pick(this.rnd() < this.idRate ? ID_WORDS : WORDS)).join(' ')
  }

  /** One transcript line (as stored), of a kind picked at random. */
  line(parent: string | null): {text: string; id: string} {
    const id = hex(this.rnd, 8)
    const t = this.tick()
    const ts = new Date(t).toISOString()
    const roll = this.rnd()
    const msg = (message: Record<string, unknown>) => JSON.stringify({type: 'message', id, parentId: parent, timestamp: ts, message})
    let text: string
    if (roll < 0.2) text = msg({role: 'user', content: this.rnd() < 0.5 ? this.text() : [{type: 'text', text: this.text()}, {type: 'image', data: 'zebra'}], timestamp: t})
    else if (roll < 0.5) {
      const input = 1 + Math.floor(this.rnd() * 5000)
      const output = Math.floor(this.rnd() * 500)
      const costed = this.rnd() < 0.8
      const usage = {input, output, cacheRead: Math.floor(this.rnd() * 100), cacheWrite: 0, totalTokens: input + output, ...(costed ? {cost: {total: Math.round(this.rnd() * 1e6) / 1e8}} : {})}
      const content: unknown[] = [{type: 'thinking', thinking: `zebra ${this.text(2)}`}, {type: 'text', text: this.text()}]
      if (this.rnd() < 0.4) content.push({type: 'toolCall', id: `c${id}`, name: 'exec', arguments: {command: this.text(3), opts: {deep: [this.text(2)], n: 3}}})
      text = msg({role: 'assistant', content, provider: this.rnd() < 0.9 ? 'mockant' : undefined, model: this.pick(['priced', 'unpriced', 'priced']), usage, timestamp: this.rnd() < 0.9 ? t : undefined})
    } else if (roll < 0.65) text = msg({role: 'toolResult', toolCallId: 'c1', toolName: 'exec', content: [{type: 'text', text: this.text()}], isError: false})
    else if (roll < 0.7) text = JSON.stringify({type: 'compaction', id, parentId: parent, timestamp: ts, summary: this.text(), firstKeptEntryId: 'x', tokensBefore: 10})
    else if (roll < 0.74) text = JSON.stringify({type: 'branch_summary', id, parentId: parent, timestamp: ts, fromId: 'x', summary: this.text()})
    else if (roll < 0.78) text = JSON.stringify({type: 'custom', customType: 'note', id, parentId: parent, timestamp: ts, data: {text: this.text()}})
    else if (roll < 0.82) text = `{"type":"message","id":"${id}","parentId":null,"timestamp":"${ts}","message":{"role":"user","content":"caf\\u00e9 ${this.text(2).replace(/["\\\n\t]/g, '')} \\u212Aelvin"}}`
    else if (roll < 0.85) text = ''
    else if (roll < 0.88) text = `${msg({role: 'user', content: this.text(), timestamp: t})}\r`
    else text = msg({role: 'user', content: [{type: 'text', text: this.text()}, {type: 'text', text: this.text()}], timestamp: t})
    return {text, id}
  }

  /** A line that is not readable JSON (with or without the needle, with or without "usage"). */
  badLine(): string {
    return this.pick(['{"type":"message","message":{"role":"user","content":"zebra torn', '42', '{"usage": {"input": 5}, zebra', 'not json at all ZEBRA', '{"type":"message","message":{"role":"assistant","usage":{"input":1']) + (this.rnd() < 0.5 ? ` ${this.text(2).replace(/\n/g, ' ')}` : '')
  }

  private transcript(sessionId: string, lines: number, start = this.tick()): string {
    const out = [JSON.stringify({type: 'session', version: 3, id: sessionId, timestamp: new Date(start).toISOString(), cwd: '/w'})]
    let parent: string | null = null
    for (let i = 0; i < lines; i++) {
      const l = this.line(parent)
      parent = l.id
      out.push(l.text)
    }
    return `${out.join('\n')}\n`
  }

  private newKey(agent: string, index: Record<string, Entry>, lines: number): string {
    const key = `agent:${agent}:k${Object.keys(index).length}`
    const id = uuid(this.rnd)
    const start = this.tick()
    fs.writeFileSync(path.join(this.dir(agent), `${id}.jsonl`), this.transcript(id, lines, start), {mode: 0o600})
    index[key] = {sessionId: id, updatedAt: this.tick(), sessionStartedAt: start, ...(this.rnd() < 0.5 ? {sessionFile: path.join(this.dir(agent), `${id}.jsonl`)} : {})}
    return key
  }

  readIndex(agent: string): Record<string, Entry> {
    return JSON.parse(fs.readFileSync(path.join(this.dir(agent), 'sessions.json'), 'utf8')) as Record<string, Entry>
  }

  private writeIndex(agent: string, index: object): void {
    const file = path.join(this.dir(agent), 'sessions.json')
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(index, null, 2), {mode: 0o600})
    fs.renameSync(`${file}.tmp`, file)
  }

  /** Every transcript file of an agent (live and archives; not sidecars). */
  transcripts(agent: string): string[] {
    return fs
      .readdirSync(this.dir(agent))
      .filter((f) => /\.jsonl(\.(reset|deleted)\..*)?$/.test(f))
      .map((f) => path.join(this.dir(agent), f))
  }

  private liveOf(agent: string, index: Record<string, Entry>, key: string): string {
    return path.join(this.dir(agent), `${index[key].sessionId}.jsonl`)
  }

  private endsTorn(file: string): boolean {
    const b = fs.readFileSync(file)
    return b.length > 0 && b[b.length - 1] !== 10
  }

  /** Applies one change; returns what it did (for the failure message), or undefined when it did not apply. */
  apply(op: Op): string | undefined {
    const agent = this.pick(this.agents)
    const index = this.readIndex(agent)
    const keys = Object.keys(index)
    const key = keys.length > 0 ? this.pick(keys) : undefined
    const live = key ? this.liveOf(agent, index, key) : undefined
    const bump = () => {
      if (key) index[key].updatedAt = this.tick()
      this.writeIndex(agent, index)
    }
    switch (op) {
      case 'append': {
        if (!live || !fs.existsSync(live)) return undefined
        const n = 1 + Math.floor(this.rnd() * 4)
        const add = Array.from({length: n}, () => this.line(null).text)
        fs.appendFileSync(live, `${this.endsTorn(live) ? '\n' : ''}${add.join('\n')}\n`)
        bump()
        return `append ${n} to ${path.basename(live)}`
      }
      case 'appendTorn': {
        if (!live || !fs.existsSync(live) || this.endsTorn(live)) return undefined
        const full = this.line(null).text
        fs.appendFileSync(live, full.slice(0, 1 + Math.floor(this.rnd() * Math.max(1, full.length - 1))))
        return `torn tail on ${path.basename(live)}`
      }
      case 'finishTorn': {
        if (!live || !fs.existsSync(live) || !this.endsTorn(live)) return undefined
        fs.appendFileSync(live, `${this.text(2).replace(/\n/g, ' ')}"}}\n`)
        return `finish the torn line of ${path.basename(live)}`
      }
      case 'badLine': {
        if (!live || !fs.existsSync(live)) return undefined
        fs.appendFileSync(live, `${this.endsTorn(live) ? '\n' : ''}${this.badLine()}\n`)
        return `bad line in ${path.basename(live)}`
      }
      case 'replace': {
        // Written to a temp file and renamed into place: another inode, other content.
        const files = this.transcripts(agent)
        if (files.length === 0) return undefined
        const f = this.pick(files)
        const id = JSON.parse(fs.readFileSync(f, 'utf8').split('\n')[0]).id as string
        fs.writeFileSync(`${f}.tmp`, this.transcript(id, 2 + Math.floor(this.rnd() * 10)))
        fs.renameSync(`${f}.tmp`, f)
        return `replace ${path.basename(f)}`
      }
      case 'rewriteHead': {
        // Rewritten in place (same inode) with another first line: what the catalog's check of the ends must notice.
        const files = this.transcripts(agent)
        if (files.length === 0) return undefined
        const f = this.pick(files)
        const lines = fs.readFileSync(f, 'utf8').split('\n')
        const head = JSON.parse(lines[0])
        head.timestamp = new Date(this.tick()).toISOString()
        lines[0] = JSON.stringify(head)
        if (lines.length > 2) lines[1] = this.line(null).text
        const fd = fs.openSync(f, 'r+')
        fs.ftruncateSync(fd, 0)
        fs.writeSync(fd, lines.join('\n'), 0)
        fs.closeSync(fd)
        return `rewrite the head of ${path.basename(f)} in place`
      }
      case 'truncate': {
        const files = this.transcripts(agent)
        if (files.length === 0) return undefined
        const f = this.pick(files)
        const size = fs.statSync(f).size
        if (size < 10) return undefined
        fs.truncateSync(f, Math.floor(size * (0.2 + this.rnd() * 0.7)))
        return `truncate ${path.basename(f)}`
      }
      case 'reset': {
        // OpenClaw's reset: the transcript archived by rename, a new session id with a header whose time is the archive's.
        if (!key || !live || !fs.existsSync(live)) return undefined
        const t = this.tick()
        const stamp = new Date(t).toISOString().replaceAll(':', '-')
        fs.renameSync(live, `${live}.reset.${stamp}`)
        const id = uuid(this.rnd)
        fs.writeFileSync(path.join(this.dir(agent), `${id}.jsonl`), this.transcript(id, Math.floor(this.rnd() * 3), t), {mode: 0o600})
        index[key] = {sessionId: id, updatedAt: this.tick(), sessionStartedAt: t}
        this.writeIndex(agent, index)
        return `reset ${key}`
      }
      case 'pruneArchive': {
        // OpenClaw's cleanup deleting an old archive: gone from the store, its spend kept by the catalog's ledger.
        const archives = this.transcripts(agent).filter((f) => /\.(reset|deleted)\./.test(f))
        if (archives.length === 0) return undefined
        const f = this.pick(archives)
        fs.rmSync(f)
        return `prune ${path.basename(f)}`
      }
      case 'deleteKey': {
        if (!key || !live) return undefined
        if (fs.existsSync(live)) fs.renameSync(live, `${live}.deleted.${new Date(this.tick()).toISOString().replaceAll(':', '-')}`)
        delete index[key]
        this.writeIndex(agent, index)
        return `delete ${key}`
      }
      case 'addKey': {
        const k = this.newKey(agent, index, 1 + Math.floor(this.rnd() * 8))
        this.writeIndex(agent, index)
        return `add ${k}`
      }
      case 'touchIndex':
        bump()
        return `touch the index of ${agent}`
      case 'reorderIndex': {
        const reordered: Record<string, Entry> = {}
        for (const k of [...keys].reverse()) reordered[k] = index[k]
        this.writeIndex(agent, reordered)
        return `reorder the index of ${agent}`
      }
    }
  }

  /** A random change, retried until one applies. */
  step(): string {
    for (;;) {
      const done = this.apply(this.pick(OPS))
      if (done) return done
    }
  }
}
