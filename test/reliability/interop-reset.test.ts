// Regenerates what test/fixtures/openclaw-2026.4.27-reset-twice holds, with a real OpenClaw 2026.4.27 gateway: three
// `agent` turns through it, the second and third led by `/new`, then clawkit's lineage, history and export read it.
// Skipped unless scripts/interop.sh (npm run test:interop) provides the OpenClaw install; see RELIABILITY.md.
import {type ChildProcess, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, json, type RunResult, runCli, runProcess, tempDir} from '../support/cli.js'
import {freePort} from '../support/net.js'
import {openclawEnv, startMockProcess} from './support/interop.js'

const NODE = process.env.CLAWKIT_INTEROP_NODE
const OPENCLAW = process.env.CLAWKIT_INTEROP_OPENCLAW
const VERSION = process.env.CLAWKIT_INTEROP_VERSION ?? ''
// The archive naming pinned here is 2026.4.27's (JSON era); later releases keep sessions in SQLite.
const enabled = Boolean(NODE && OPENCLAW && fs.existsSync(OPENCLAW) && (VERSION === '' || VERSION.startsWith('2026.4.')))

/** `openclaw gateway run` in the background, resolved once it logs "[gateway] ready". */
async function startGateway(state: string, home: string): Promise<ChildProcess> {
  const gw = spawn(NODE!, [OPENCLAW!, 'gateway', 'run'], {cwd: home, env: openclawEnv(home, state), stdio: ['ignore', 'pipe', 'pipe']})
  let log = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway not ready after 180 s:\n${log.slice(-3000)}`)), 180_000)
    const onData = (d: Buffer): void => {
      log += String(d)
      if (log.includes('[gateway] ready')) {
        clearTimeout(timer)
        resolve()
      }
    }
    gw.stdout!.on('data', onData)
    gw.stderr!.on('data', onData)
    gw.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`gateway exited (${code}):\n${log.slice(-3000)}`))
    })
  })
  return gw
}

describe.skipIf(!enabled)(`interop: a key reset twice by a real OpenClaw ${VERSION} gateway (/new)`, () => {
  it('three turns, /new before the 2nd and 3rd: two .reset. archives under the first id\'s file name; clawkit lineage, history and export show all three sessions', async () => {
    const home = tempDir()
    const state = path.join(tempDir(), 'state')
    const {mock, port} = await startMockProcess(path.join(home, 'requests.jsonl'))
    let gw: ChildProcess | undefined
    try {
      const gatewayPort = await freePort()
      fs.mkdirSync(state, {recursive: true})
      // The same config as the fixture's (test/fixtures/README.md), with this run's ports.
      fs.writeFileSync(path.join(state, 'openclaw.json'), JSON.stringify({
        agents: {defaults: {model: {primary: 'mockant/claude-mock'}, workspace: path.join(state, 'workspace')}},
        gateway: {mode: 'local', port: gatewayPort, bind: 'loopback', auth: {mode: 'token', token: 'test-gateway-token'}},
        models: {mode: 'merge', providers: {mockant: {baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk-ant-test', api: 'anthropic-messages', models: [{id: 'claude-mock', name: 'Mock Claude', reasoning: false, input: ['text'], cost: {input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75}, contextWindow: 200_000, maxTokens: 8192}]}}},
        plugins: {slots: {memory: 'none'}, entries: {'memory-core': {enabled: false}}},
      }, null, 2))
      const cache = process.env.CLAWKIT_INTEROP_CACHE
      if (cache) fs.symlinkSync(path.join(cache, 'plugin-runtime-deps'), path.join(state, 'plugin-runtime-deps'))
      gw = await startGateway(state, home)
      const questions = ['the capital of France?', 'the capital of Italy?', 'the capital of Spain?']
      for (const [i, q] of questions.entries()) {
        const r: RunResult = await runProcess(NODE!, [OPENCLAW!, 'agent', '--agent', 'main', '-m', `${i === 0 ? '' : '/new '}question ${i + 1}: ${q}`, '--json'], {env: openclawEnv(home, state), cwd: home, timeoutMs: 180_000})
        expect(r.code, r.stderr.slice(-2000)).toBe(0)
      }
      gw.kill()
      const dir = path.join(state, 'agents', 'main', 'sessions')
      const entry = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'))['agent:main:main']
      const live = path.basename(entry.sessionFile)
      const archives = fs.readdirSync(dir).filter((n) => n.startsWith(`${live}.reset.`)).sort()
      expect(archives).toHaveLength(2)
      const files = [...archives, live]
      const ids = files.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8').split('\n')[0]).id as string)
      expect(new Set(ids).size).toBe(3)
      expect(ids[2]).toBe(entry.sessionId)
      // 2026.4.27 keeps sessionFile on the first session's name (what the fixture README describes).
      process.stderr.write(`interop-reset: live file ${live}, ids ${ids.join(' ')}\n`)
      expect(live).toBe(`${ids[0]}.jsonl`)

      const env = {env: baseEnv(home)}
      const l = json(await runCli(['sessions', 'lineage', 'main', '--json', '--state-dir', state], env))
      expect(l.sessions.map((s: any) => [s.sessionId, s.where, path.basename(s.transcript), s.ended])).toEqual([
        [ids[0], 'reset-archive', files[0], 'reset'],
        [ids[1], 'reset-archive', files[1], 'reset'],
        [ids[2], 'live', files[2], 'current'],
      ])
      const h = json(await runCli(['sessions', 'history', 'main', '--include-archived', '--limit', '1000', '--json', '--state-dir', state], env))
      expect(h.sessions!.map((s: any) => s.sessionId)).toEqual(ids)
      const said = h.entries.filter((e: any) => e.type === 'message' && e.role === 'user').map((e: any) => e.text).join('\n')
      for (const q of questions) expect(said).toContain(q)
      const md = await runCli(['sessions', 'export', 'main', '--include-archived', '--state-dir', state], env)
      expect(md.code, md.stderr).toBe(0)
      for (const q of questions) expect(md.stdout).toContain(q)
    } finally {
      gw?.kill()
      mock.kill()
    }
  }, 600_000)
})
