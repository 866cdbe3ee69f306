import {spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'

import {describe, expect, it} from 'vitest'

import {baseEnv, BIN, copyFixture, json, jsonError, readIndexFile, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../support/cli.js'

const hasScript = spawnSync('script', ['--version']).status === 0

/**
 * Run doctor on a pseudo-terminal (util-linux `script`) and answer the prompt once it has been printed (not after a
 * fixed pause: that cost 2 s a run, and on a loaded machine the answer could come before the question).
 */
function runOnTty(args: string[], answer: string, env: Record<string, string>): Promise<string> {
  const cmd = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], {env, stdio: ['pipe', 'pipe', 'pipe']})
    let out = ''
    let answered = false
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d
      if (!answered && out.includes('[y/N]')) {
        answered = true
        child.stdin.end(`${answer}\n`)
      }
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('error', reject)
    child.on('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
  })
}

describe('doctor command', () => {
  it('--repair is an alias of --fix, and --yes alone repairs too; without a TTY nothing prompts', async () => {
    for (const flag of ['--repair', '--yes']) {
      const state = copyFixture(TWO_AGENTS)
      // stdin is a pipe here: a prompt would hang or read the empty input as "no"
      const r = await runCli(['doctor', flag, '--json', '--state-dir', state], {env: baseEnv(tempDir()), input: ''})
      expect(r.code, r.stderr).toBe(0)
      expect(json(r).fixed).toBe(2)
      expect(json(r).repair).toBe(true)
      expect(readIndexFile(sessionsJsonPath(state))['agent:main:main'].sessionFile?.startsWith(state)).toBe(true)
    }
  })

  it.skipIf(!hasScript)('on a TTY, --fix shows the plan and asks once: "n" changes nothing, "y" repairs', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const no = await runOnTty(['doctor', '--fix', '--state-dir', state], 'n', env)
    expect(no).toContain('Apply these repairs? [y/N]')
    expect(no).toContain('Repairs cancelled; nothing was changed.')
    expect(readIndexFile(sessionsJsonPath(state))['agent:main:main'].sessionFile).toMatch(/^\/home\/user\//)
    const yes = await runOnTty(['doctor', '--fix', '--state-dir', state], 'y', env)
    expect(yes).toContain('Summary: 0 error(s), 0 warning(s), 0 info; 2 fixed.')
    expect(readIndexFile(sessionsJsonPath(state))['agent:main:main'].sessionFile?.startsWith(state)).toBe(true)
  })

  it('usage errors exit 2 (unknown flag); an unknown --agent is a clear error with exit 1, also as a JSON envelope', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    const bad = await runCli(['doctor', '--bogus', '--state-dir', state], {env})
    expect(bad.code).toBe(2)
    const r = await runCli(['doctor', '--agent', 'nobody', '--state-dir', state], {env})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Unknown agent id "nobody"')
    const j = await runCli(['doctor', '--agent', 'nobody', '--json', '--state-dir', state], {env})
    expect(j.code).toBe(2)
    expect(jsonError(j)).toMatchObject({code: 'E_UNKNOWN_AGENT', exitCode: 2})
  })

  it('--json prints exactly one document with the documented keys, and nothing on stderr', async () => {
    const state = copyFixture(TWO_AGENTS)
    const r = await runCli(['doctor', '--json', '--state-dir', state], {env: baseEnv(tempDir())})
    const doc = json(r)
    expect(Object.keys(doc)).toEqual(['ok', 'stateDir', 'stateDirReason', 'configPath', 'agents', 'findings', 'fixed', 'dryRun', 'repair', 'counts', 'exitCode'])
    expect(doc.exitCode).toBe(r.code)
    expect(doc.counts).toEqual({error: 0, warn: 2, info: 0})
    for (const f of doc.findings) expect(Object.keys(f).slice(0, 7)).toEqual(['id', 'severity', 'agentId', 'path', 'message', 'fixable', 'fixed'])
    expect(r.stderr).toBe('')
  })

  it('exit codes: 0 healthy, 3 warnings remain, 4 errors remain', async () => {
    const state = copyFixture(TWO_AGENTS)
    const env = baseEnv(tempDir())
    expect((await runCli(['doctor', '--state-dir', state], {env})).code).toBe(3)
    expect((await runCli(['doctor', '--fix', '--state-dir', state], {env})).code).toBe(0)
    fs.writeFileSync(sessionsJsonPath(state, 'work'), '')
    expect((await runCli(['doctor', '--state-dir', state], {env})).code).toBe(4)
  })
})
