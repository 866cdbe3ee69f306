// The agent on a real pseudo-terminal (util-linux `script`): the spinner appears only where it can work.
import {spawn, spawnSync} from 'node:child_process'

import {describe, expect, it} from 'vitest'

import {BIN, ROOT} from '../../support/cli.js'
import {type AgentEnv, agentEnvs} from './setup.js'

const hasScript = spawnSync('script', ['--version'], {encoding: 'utf8'}).status === 0

const make = agentEnvs()

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`

/** Run the CLI with stdout and stderr on one pseudo-terminal, `stty cols <cols>` first; SIGKILL after 15 s. */
function onTty(a: AgentEnv, cols: number, args: string[]): Promise<{code: number | null; out: string; timedOut: boolean}> {
  const cmd = `stty cols ${cols} rows 24; ${[process.execPath, BIN, ...args, '--state-dir', a.state].map(quote).join(' ')}`
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], {cwd: ROOT, env: a.env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    let timedOut = false
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d.length + out.length > 1_000_000 ? '' : d))
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, 15_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, out, timedOut})
    })
  })
}

describe.skipIf(!hasScript)('agent on a terminal', () => {
  it('a terminal that reports 0 columns gets no spinner, and the turn ends (ora would loop forever clearing lines)', async () => {
    const a = await make()
    const r = await onTty(a, 0, ['agent', '--agent', 'main', '-m', 'hello zero'])
    expect(r.timedOut).toBe(false)
    expect(r.code).toBe(0)
    expect(r.out).toContain('Echo: hello zero')
    expect(r.out).not.toContain('Waiting for agent reply')
  })

  it('a terminal with a width shows the spinner while waiting, then the streamed reply', async () => {
    const a = await make()
    const r = await onTty(a, 100, ['agent', '--agent', 'main', '-m', 'hello wide'])
    expect(r.timedOut).toBe(false)
    expect(r.code).toBe(0)
    expect(r.out).toContain('Waiting for agent reply')
    expect(r.out).toContain('Echo: hello wide')
  })
})
