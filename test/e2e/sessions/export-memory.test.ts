// `sessions export` keeps a bounded memory whatever the transcript's size and wherever stdout goes: to a regular file
// (`> FILE`), a pipe, or --out. Measured as the peak RSS (VmHWM) of the real CLI child, reported by
// scripts/rss-probe.cjs at its exit, on two generated transcripts (40 and 200 MiB): the peak may grow by less than half
// of what the transcript grew. The child runs with a fixed heap budget (96 MiB old space): before the fix a file as
// stdout held every chunk written until the end (+118 MiB of RSS for +120 MiB of transcript), which under that budget
// ends in an out-of-memory abort; fixed, every target grows by a few MiB, loaded machine or not. Without the budget V8
// sized its heap by how fast the work went, and a starved machine saw +100 MiB for an export that streams.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, BIN, ROOT, tempDir} from '../../support/cli.js'

const SID = '11111111-1111-4111-8111-111111111111'
const MiB = 1024 * 1024

/** A JSON-era state dir whose one session's transcript is about `mib` MiB of user and assistant messages of ~5 KiB. */
function bigState(mib: number): string {
  const state = path.join(tempDir(), 'state')
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  const fd = fs.openSync(path.join(dir, `${SID}.jsonl`), 'w')
  try {
    fs.writeSync(fd, `${JSON.stringify({type: 'session', version: 3, id: SID, timestamp: '2026-11-01T00:00:00.000Z', cwd: '/w'})}\n`)
    const text = 'lorem ipsum dolor sit amet '.repeat(200)
    let bytes = 0
    let parent: string | null = null
    const lines: string[] = []
    for (let n = 1; bytes < mib * MiB; n++) {
      const id = n.toString(16).padStart(8, '0')
      const message = n % 2 ? {role: 'user', content: `u${n} ${text}`, timestamp: n} : {role: 'assistant', content: [{type: 'text', text: `a${n} ${text}`}], provider: 'p', model: 'm', usage: {input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: {total: 0.001}}, timestamp: n}
      const line = `${JSON.stringify({type: 'message', id, parentId: parent, timestamp: new Date(1.8e12 + n * 1000).toISOString(), message})}\n`
      parent = id
      lines.push(line)
      bytes += line.length
      if (lines.length === 1000) fs.writeSync(fd, lines.splice(0).join(''))
    }
    fs.writeSync(fd, lines.join(''))
  } finally {
    fs.closeSync(fd)
  }
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: SID, updatedAt: 1}}))
  return state
}

type Target = 'file' | 'pipe' | 'out'

/** Peak RSS in MiB of `sessions export` with stdout a regular file, a pipe read to the end, or --out; checks the output. */
async function peak(state: string, format: string, target: Target): Promise<number> {
  const dir = tempDir()
  const probe = path.join(dir, 'rss')
  const out = path.join(dir, `export.${format}`)
  const args = [BIN, 'sessions', 'export', 'agent:main:main', '--format', format, '--state-dir', state, ...(target === 'out' ? ['--out', out] : [])]
  // A fixed heap budget: V8 otherwise sizes its heap by how fast the work went, and under a loaded machine let an
  // export that streams grow by as much as one that holds its output (seen: +100 MiB). 96 MiB is plenty to stream.
  const env = baseEnv(tempDir(), {NODE_OPTIONS: `--require ${path.join(ROOT, 'scripts', 'rss-probe.cjs')} --max-old-space-size=96 --max-semi-space-size=4`, CLAWKIT_RSS_PROBE_FILE: probe})
  const fd = target === 'file' ? fs.openSync(out, 'w') : undefined
  try {
    const child = spawn(process.execPath, args, {env, stdio: ['ignore', fd ?? 'pipe', 'pipe']})
    let piped = 0
    child.stdout?.on('data', (b: Buffer) => (piped += b.length))
    let stderr = ''
    child.stderr!.on('data', (b: Buffer) => (stderr += b))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code, stderr).toBe(0)
    const bytes = target === 'pipe' ? piped : fs.statSync(out).size
    expect(bytes).toBeGreaterThan(30 * MiB)
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
  return Number(fs.readFileSync(probe, 'utf8')) / MiB
}

describe('sessions export memory (issue 25 finding 8)', () => {
  it.runIf(process.platform === 'linux')('the peak RSS does not grow with the transcript: 40 and 200 MiB exported as md and jsonl to a file stdout (> FILE), a pipe and --out', async () => {
    const small = bigState(40)
    const large = bigState(200)
    const rows: string[] = []
    for (const format of ['md', 'jsonl']) {
      for (const target of ['file', 'pipe', 'out'] as const) {
        const a = await peak(small, format, target)
        const b = await peak(large, format, target)
        rows.push(`${format} ${target}: ${a.toFixed(0)} -> ${b.toFixed(0)} MiB`)
        // 160 MiB more transcript; V8 lets its heap grow somewhat with the work done (10 to 50 MiB seen).
        expect(b - a, rows.at(-1)).toBeLessThan(80)
      }
    }
    console.log(rows.join('\n'))
  }, 240_000)
})
