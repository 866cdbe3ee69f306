// Test support for the fleet: a generated JSON-era state dir in OpenClaw's layout (sessions.json + one JSONL transcript
// per session, assistant messages with usage and recorded cost), and the changes a host sees between two syncs (a turn
// appended, a transcript edited in the middle, a reset that archives one and starts another). Seeded: same seed, same dir.
import fs from 'node:fs'
import path from 'node:path'

/** mulberry32: a small seeded generator, so that a failing trial can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const hex = (rnd: () => number, n: number) => Array.from({length: n}, () => Math.floor(rnd() * 16).toString(16)).join('')
const uuid = (rnd: () => number) => `${hex(rnd, 8)}-${hex(rnd, 4)}-4${hex(rnd, 3)}-8${hex(rnd, 3)}-${hex(rnd, 12)}`

export interface GenOptions {
  agents?: string[]
  sessions: number
  /** Entries per transcript after the header. */
  lines: number
  seed?: number
  /** Characters of text per message (the size knob). */
  textSize?: number
}

let clock = Date.parse('2026-11-20T10:00:00.000Z')
const nextTime = () => new Date((clock += 1000)).toISOString()

function entryLine(rnd: () => number, parentId: string | null, i: number, textSize: number): Record<string, unknown> {
  const id = hex(rnd, 8)
  const text = `turn ${i} ${hex(rnd, 6)} `.padEnd(textSize, 'lorem ipsum ')
  if (i % 2 === 0) return {type: 'message', id, parentId, timestamp: nextTime(), message: {role: 'user', content: [{type: 'text', text}], timestamp: clock}}
  const input = 100 + Math.floor(rnd() * 900)
  const output = 10 + Math.floor(rnd() * 90)
  return {
    type: 'message',
    id,
    parentId,
    timestamp: nextTime(),
    message: {
      role: 'assistant',
      content: [{type: 'text', text}],
      api: 'anthropic-messages',
      provider: 'mockant',
      model: 'claude-mock',
      usage: {input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: {input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0, total: input * 3e-6 + output * 15e-6}},
      stopReason: 'stop',
      timestamp: clock,
    },
  }
}

const jsonl = (lines: object[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join('')

function sessionsDir(state: string, agent: string): string {
  return path.join(state, 'agents', agent, 'sessions')
}

/** A state dir with `sessions` keys per agent, each with a transcript of `lines` entries. */
export function generateState(state: string, opts: GenOptions): void {
  const rnd = seeded(opts.seed ?? 1)
  const agents = opts.agents ?? ['main']
  fs.mkdirSync(state, {recursive: true, mode: 0o700})
  fs.writeFileSync(
    path.join(state, 'openclaw.json'),
    JSON.stringify({
      agents: {defaults: {model: {primary: 'mockant/claude-mock'}}, list: agents.map((id, i) => ({id, ...(i === 0 ? {default: true} : {})}))},
      models: {providers: {mockant: {baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-secret-not-for-fleet', api: 'anthropic-messages', models: [{id: 'claude-mock', cost: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}}]}}},
    }),
  )
  for (const agent of agents) {
    const dir = sessionsDir(state, agent)
    fs.mkdirSync(dir, {recursive: true, mode: 0o700})
    const index: Record<string, unknown> = {}
    for (let s = 0; s < opts.sessions; s++) {
      const id = uuid(rnd)
      const key = `agent:${agent}:s${s}`
      const lines: object[] = [{type: 'session', version: 3, id, timestamp: nextTime(), cwd: '/tmp/ws'}]
      let parent: string | null = null
      for (let i = 0; i < opts.lines; i++) {
        const e = entryLine(rnd, parent, i, opts.textSize ?? 80)
        parent = e.id as string
        lines.push(e)
      }
      fs.writeFileSync(path.join(dir, `${id}.jsonl`), jsonl(lines), {mode: 0o600})
      index[key] = {sessionId: id, updatedAt: clock, sessionFile: path.join(dir, `${id}.jsonl`), model: 'claude-mock', modelProvider: 'mockant', label: `s${s}`}
    }
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(index, null, 2), {mode: 0o600})
  }
}

function readIndex(state: string, agent: string): Record<string, {sessionId: string; updatedAt: number; sessionFile?: string}> {
  return JSON.parse(fs.readFileSync(path.join(sessionsDir(state, agent), 'sessions.json'), 'utf8'))
}

function writeIndex(state: string, agent: string, index: object): void {
  const file = path.join(sessionsDir(state, agent), 'sessions.json')
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(index, null, 2), {mode: 0o600})
  fs.renameSync(`${file}.tmp`, file)
}

function lastId(file: string): string | null {
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n')
  const last = JSON.parse(lines.at(-1)!) as {id?: string; type?: string}
  return last.type === 'session' ? null : (last.id ?? null)
}

/** What a host does between two syncs, picked by `rnd`: one or two turns appended, a line edited, or a reset. */
export function mutateState(state: string, rnd: () => number, agent = 'main'): string {
  const index = readIndex(state, agent)
  const keys = Object.keys(index)
  const key = keys[Math.floor(rnd() * keys.length)]
  const e = index[key]
  const file = path.join(sessionsDir(state, agent), `${e.sessionId}.jsonl`)
  const roll = rnd()
  if (roll < 0.7) {
    let parent = lastId(file)
    const add: object[] = []
    for (let i = 0; i < 2 + Math.floor(rnd() * 6); i++) {
      const l = entryLine(rnd, parent, i, 80)
      parent = l.id as string
      add.push(l)
    }
    fs.appendFileSync(file, jsonl(add))
    e.updatedAt = clock
    writeIndex(state, agent, index)
    return `append ${add.length} to ${key}`
  }
  if (roll < 0.85) {
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    const at = 1 + Math.floor(rnd() * Math.max(1, lines.length - 2))
    lines[at] = lines[at].replace('"type":', `"edited":"${hex(rnd, 4)}","type":`)
    fs.writeFileSync(file, lines.join('\n'))
    return `edit line ${at + 1} of ${key}`
  }
  // A reset as OpenClaw does it: the transcript archived by rename, a new session id with a header-only transcript.
  const stamp = new Date(clock).toISOString().replaceAll(':', '-')
  fs.renameSync(file, `${file}.reset.${stamp}`)
  const id = uuid(rnd)
  const next = path.join(sessionsDir(state, agent), `${id}.jsonl`)
  fs.writeFileSync(next, jsonl([{type: 'session', version: 3, id, timestamp: nextTime(), cwd: '/tmp/ws'}]), {mode: 0o600})
  index[key] = {...e, sessionId: id, sessionFile: next, updatedAt: clock}
  writeIndex(state, agent, index)
  return `reset ${key}`
}
