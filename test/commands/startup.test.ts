import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, ROOT, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'

const HEAVY = ['@anthropic-ai/sdk', 'ora', 'cli-table3']

/** esbuild (scripts/bundle.js) marks each bundled module with a `// node_modules/<pkg>/<file>` comment. */
const marker = (pkg: string) => `// node_modules/${pkg}/`

/** The bundle files in dist/ a process loaded, from its import trace. */
function loadedBundleFiles(trace: string): string[] {
  const dist = pathToFileURL(path.join(ROOT, 'dist') + path.sep).href
  return [...new Set(fs.readFileSync(trace, 'utf8').split('\n'))].filter((url) => url.startsWith(dist)).map((url) => fileURLToPath(url))
}

describe('read commands stay light', () => {
  it.each([
    [['sessions', 'list', '--json']],
    [['sessions', 'list']],
    [['sessions', 'history', 'main', '--json']],
    [['sessions', 'history', 'main']],
    [['status', '--json']],
    [['doctor', '--json']],
  ])('%j imports neither the Anthropic SDK, ora nor cli-table3', async (args) => {
    const state = copyFixture(TWO_AGENTS)
    const trace = path.join(tempDir(), 'imports.txt')
    const env = baseEnv(tempDir(), {NODE_OPTIONS: `--import ${path.join(ROOT, 'test/support/trace-imports.mjs')}`, CLAWKIT_TRACE_IMPORTS: trace})
    const r = await runCli([...args, '--state-dir', state], {env})
    expect([0, 3], r.stderr).toContain(r.code) // doctor exits 3 on the fixture's warnings
    const loaded = fs.readFileSync(trace, 'utf8')
    expect(loaded).toContain('/dist/cli.js') // the trace really saw the bundle load
    for (const heavy of HEAVY) expect(loaded, heavy).not.toContain(`/node_modules/${heavy}/`)
    const files = loadedBundleFiles(trace)
    expect(files).toContain(path.join(ROOT, 'dist', 'cli.js')) // the file list is real, so the loop below checks something
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8')
      for (const heavy of HEAVY) expect(text.includes(marker(heavy)), `${heavy} inside ${file}`).toBe(false)
    }
  })

  it('the bundle keeps the SDK, ora and cli-table3 in chunks of their own (so the check above can fail)', () => {
    const chunks = fs.readdirSync(path.join(ROOT, 'dist', 'chunks')).map((f) => fs.readFileSync(path.join(ROOT, 'dist', 'chunks', f), 'utf8'))
    for (const heavy of HEAVY) expect(chunks.some((text) => text.includes(marker(heavy))), heavy).toBe(true)
    expect(fs.readFileSync(path.join(ROOT, 'dist', 'cli.js'), 'utf8')).toContain(marker('@oclif/core'))
  })

  it('the README quick-start command works on the committed demo state', async () => {
    const r = await runCli(['sessions', 'list', '--state-dir', 'examples/demo-state', '--all-agents'], {env: baseEnv(tempDir())})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Sessions listed: 3')
    expect(r.stdout).toMatch(/^main\s+group\s+agent:main:teleg\.\.\.567890/m)
  })

  it('colours the tokens cell only when asked (FORCE_COLOR) and never under NO_COLOR or a pipe', async () => {
    const state = copyFixture(TWO_AGENTS)
    const plain = await runCli(['sessions', 'list', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(plain.stdout).not.toMatch(/\u001B\[/)
    const forced = await runCli(['sessions', 'list', '--state-dir', state], {env: baseEnv(tempDir(), {NO_COLOR: undefined, FORCE_COLOR: '1'})})
    expect(forced.stdout).toMatch(/\u001B\[2m9\.7k\/200k \(5%\)\u001B\[22m/)
  })
})
