// The raw-line scan behind `sessions search` at the places a block reader gets wrong: a needle across the 1 MiB read
// boundary, a line longer than two blocks, the last line without a newline, case variants under smart case, needles
// with digits and punctuation, a one-letter needle. The expected hits come from the raw bytes (split on newlines,
// JSON.parse, the documented rules), and the SIMD scan must give the same document as the Buffer.indexOf one
// (CLAWKIT_NO_SIMD=1).
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsSearchResult} from '../../../src/commands/sessions/search.js'
import {baseEnv, json, runCli, tempDir} from '../../support/cli.js'
import {holds, searchedTexts} from '../../support/search.js'

const MiB = 1024 * 1024
const ID1 = 'eeeeeeee-0000-4000-8000-000000000001'
const ID2 = 'eeeeeeee-0000-4000-8000-000000000002'

let n = 0
const at = (i: number) => new Date(Date.parse('2026-11-20T00:00:00Z') + i * 1000).toISOString()
const user = (text: string) => {
  n++
  return JSON.stringify({type: 'message', id: `m${n.toString(16).padStart(7, '0')}`, parentId: null, timestamp: at(n), message: {role: 'user', content: text, timestamp: Date.parse(at(n))}})
}
const WORDS = 'the server config deploy build test run request response session agent model token cache channel message'.split(' ')
const filler = (i: number) => Array.from({length: 20 + (i % 90)}, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ')
const CASES = ['kubeconfig', 'KubeConfig', 'KUBECONFIG', 'kUbEcOnFiG']

/** A user line whose needle starts exactly at file offset `target` (the line itself starting at `offset`). */
function lineWithNeedleAt(offset: number, target: number, needle: string): string {
  const probe = user(`${needle} tail`)
  const pad = target - (offset + probe.indexOf(needle))
  n--
  return user(`${'p'.repeat(pad)}${needle} tail`)
}

function corpus(): string {
  const state = path.join(tempDir(), 'state')
  const dir = path.join(state, 'agents', 'main', 'sessions')
  fs.mkdirSync(dir, {recursive: true})
  fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify({'agent:main:main': {sessionId: ID1, updatedAt: 1}, 'agent:main:other': {sessionId: ID2, updatedAt: 2}}))
  // ID1: 3.5 MiB of lines, the needle in every 97th in one of its case variants, and astride each 1 MiB boundary.
  const out = [JSON.stringify({type: 'session', version: 3, id: ID1, timestamp: at(0), cwd: '/w'})]
  let offset = out[0].length + 1
  for (let i = 0; offset < 3.5 * MiB; i++) {
    const boundary = Math.ceil(offset / MiB) * MiB
    let l: string
    if (boundary - offset > 200 && boundary - offset < 2000) l = lineWithNeedleAt(offset, boundary - 4, CASES[i % 4])
    else if (i % 97 === 0) l = user(`${filler(i)} ${CASES[i % 4]} and k8s-ctl or K8S-CTL but not k8s_ctl ${filler(i + 1)}`)
    else if (i % 89 === 0) l = user(`${filler(i)} Z marks the spot ${filler(i + 2)}`)
    else l = user(filler(i))
    out.push(l)
    offset += Buffer.byteLength(l) + 1
  }
  fs.writeFileSync(path.join(dir, `${ID1}.jsonl`), `${out.join('\n')}\n`)
  // ID2: a 2.5 MiB line (longer than two blocks) with the needle at its end, then a last line with no newline.
  const long = user(`${'q'.repeat(2.5 * MiB)} KubeConfig at the end`)
  fs.writeFileSync(path.join(dir, `${ID2}.jsonl`), `${JSON.stringify({type: 'session', version: 3, id: ID2, timestamp: at(0), cwd: '/w'})}\n${user('first kubeconfig')}\n${long}\n${user('Z the last kubeconfig, unterminated')}`)
  return state
}

function expectedHits(files: string[], pattern: string): string[] {
  const out: string[] = []
  for (const file of files) {
    fs.readFileSync(file)
      .toString('utf8')
      .split('\n')
      .forEach((l, i) => {
        let e: unknown
        try {
          e = JSON.parse(l)
        } catch {
          return
        }
        for (const p of searchedTexts(e)) if (holds(p.text, pattern)) out.push(`${file}:${i + 1}:${p.kind}`)
      })
  }
  return out.sort()
}

async function search(state: string, pattern: string, extra: Record<string, string> = {}): Promise<SessionsSearchResult> {
  const r = await runCli(['sessions', 'search', pattern, '--limit', 'all', '--json'], {env: baseEnv(tempDir(), {OPENCLAW_STATE_DIR: state, ...extra}), timeoutMs: 60_000})
  expect(r.code, r.stderr).toBe(0)
  return json<SessionsSearchResult>(r)
}

describe('sessions search: the block scan', () => {
  it('finds a needle astride the 1 MiB read boundary, in a line longer than two blocks and in an unterminated last line, in every case variant; the SIMD scan and the indexOf scan agree', async () => {
    const state = corpus()
    const dir = path.join(state, 'agents', 'main', 'sessions')
    const files = [path.join(dir, `${ID1}.jsonl`), path.join(dir, `${ID2}.jsonl`)]
    for (const pattern of ['kubeconfig', 'KubeConfig', 'k8s-ctl', 'K8S-CTL', 'z', 'Z']) {
      const expected = expectedHits(files, pattern)
      expect(expected.length, pattern).toBeGreaterThan(2)
      const simd = await search(state, pattern)
      expect(simd.hits.map((h) => `${h.transcript}:${h.line}:${h.kind}`).sort(), pattern).toEqual(expected)
      expect(simd.count).toBe(expected.length)
      const plain = await search(state, pattern, {CLAWKIT_NO_SIMD: '1'})
      expect(plain, pattern).toEqual(simd)
    }
  }, 120_000)
})
