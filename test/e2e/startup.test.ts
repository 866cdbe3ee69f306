import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, ROOT, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'

const HEAVY = ['@anthropic-ai/sdk', 'ora', 'cli-table3', 'pg', '@modelcontextprotocol/sdk']
/** Loaded only when an autocomplete command runs (src/cli/autocomplete-plugin.ts), never bundled. */
const PLUGIN_ONLY = ['@oclif/plugin-autocomplete']

/** The packages bundled into a file of dist/, as scripts/bundle.js records them from esbuild's metafile. */
function packagesIn(file: string): string[] {
  const recorded = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'bundle-packages.json'), 'utf8')) as Record<string, string[]>
  const names = recorded[path.relative(path.join(ROOT, 'dist'), file).split(path.sep).join('/')]
  if (!names) throw new Error(`dist/bundle-packages.json does not list ${file}`)
  return names
}

/** The bundle files in dist/ a process loaded, from its trace (ES module URLs and require.cache paths). */
function loadedBundleFiles(trace: string): string[] {
  const dist = path.join(ROOT, 'dist') + path.sep
  const files = fs.readFileSync(trace, 'utf8').split('\n').map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line))
  return [...new Set(files)].filter((file) => file.startsWith(dist))
}

describe('read commands stay light', () => {
  it.each([
    [['sessions', 'list', '--json']],
    [['sessions', 'list']],
    [['sessions', 'history', 'main', '--json']],
    [['sessions', 'history', 'main']],
    [['status', '--json']],
    [['doctor', '--json']],
  ])('%j imports neither the Anthropic SDK, ora, cli-table3 nor node:crypto', async (args) => {
    const state = copyFixture(TWO_AGENTS)
    const trace = path.join(tempDir(), 'imports.txt')
    const env = baseEnv(tempDir(), {NODE_OPTIONS: `--import ${path.join(ROOT, 'test/support/trace-imports.mjs')}`, CLAWKIT_TRACE_IMPORTS: trace})
    const r = await runCli([...args, '--state-dir', state], {env})
    expect([0, 3], r.stderr).toContain(r.code) // doctor exits 3 on the fixture's warnings
    const loaded = fs.readFileSync(trace, 'utf8')
    for (const heavy of [...HEAVY, ...PLUGIN_ONLY]) expect(loaded, heavy).not.toContain(`/node_modules/${heavy}/`)
    // node:crypto costs ~3 ms to load and only writes need it (src/store/random-id.ts); node:fs shows the list is there.
    expect(loaded).toContain('node:fs\n')
    expect(loaded).not.toContain('node:crypto\n')
    const files = loadedBundleFiles(trace)
    expect(files).toContain(path.join(ROOT, 'dist', 'cli.cjs')) // the trace really saw the bundle load, so the loop below checks something
    expect(files.filter((f) => f.includes(`${path.sep}vendor${path.sep}`))).toEqual([])
    for (const file of files) for (const heavy of HEAVY) expect(packagesIn(file), `${heavy} inside ${file}`).not.toContain(heavy)
  })

  it('CLAWKIT_STORE_URL set: a local read still loads no pg; --store-url does load its vendor file (so the checks can fail)', async () => {
    const state = copyFixture(TWO_AGENTS)
    const traced = async (args: string[], extra: Record<string, string>) => {
      const trace = path.join(tempDir(), 'imports.txt')
      const env = baseEnv(tempDir(), {NODE_OPTIONS: `--import ${path.join(ROOT, 'test/support/trace-imports.mjs')}`, CLAWKIT_TRACE_IMPORTS: trace, ...extra})
      const r = await runCli(args, {env})
      return {r, files: loadedBundleFiles(trace)}
    }
    // Nothing listens on port 1: the env var must not even be tried.
    const plain = await traced(['sessions', 'list', '--json', '--state-dir', state], {CLAWKIT_STORE_URL: 'postgres://nobody@127.0.0.1:1/fleet'})
    expect(plain.r.code, plain.r.stderr).toBe(0)
    expect(plain.files.filter((f) => f.includes(`${path.sep}vendor${path.sep}`))).toEqual([])
    const fleet = await traced(['sessions', 'list', '--json', '--store-url', 'postgres://nobody@127.0.0.1:1/fleet'], {})
    expect(fleet.r.code).toBe(1)
    expect(JSON.parse(fleet.r.stdout).error.code).toBe('E_STORE_DB')
    const vendor = fleet.files.filter((f) => f.includes(`${path.sep}vendor${path.sep}`))
    expect(vendor.some((f) => packagesIn(f).includes('pg'))).toBe(true)
  })

  it('clawkit mcp loads the MCP SDK from its vendor file (so the checks above can fail), and ends when its stdin does', async () => {
    const state = copyFixture(TWO_AGENTS)
    const trace = path.join(tempDir(), 'imports.txt')
    const env = baseEnv(tempDir(), {NODE_OPTIONS: `--import ${path.join(ROOT, 'test/support/trace-imports.mjs')}`, CLAWKIT_TRACE_IMPORTS: trace})
    const r = await runCli(['mcp', '--state-dir', state], {env, input: ''})
    expect(r.code, r.stderr).toBe(0)
    const vendor = loadedBundleFiles(trace).filter((f) => f.includes(`${path.sep}vendor${path.sep}`))
    expect(vendor.map((f) => path.basename(f))).toEqual(['mcp-sdk.cjs'])
    expect(packagesIn(vendor[0])).toContain('@modelcontextprotocol/sdk')
  })

  it('an autocomplete command does load the plugin from node_modules (so the check above can fail)', async () => {
    const trace = path.join(tempDir(), 'imports.txt')
    const env = baseEnv(tempDir(), {NODE_OPTIONS: `--import ${path.join(ROOT, 'test/support/trace-imports.mjs')}`, CLAWKIT_TRACE_IMPORTS: trace})
    const r = await runCli(['autocomplete', 'script', 'bash'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(fs.readFileSync(trace, 'utf8')).toContain('/node_modules/@oclif/plugin-autocomplete/')
  })

  it('the bundle keeps the SDKs, ora, cli-table3 and pg in vendor files of their own (so the checks above can fail)', () => {
    const vendor = path.join(ROOT, 'dist', 'vendor')
    const files = fs.readdirSync(vendor).filter((f) => f.endsWith('.cjs')).map((f) => packagesIn(path.join(vendor, f)))
    for (const heavy of HEAVY) expect(files.some((names) => names.includes(heavy)), heavy).toBe(true)
    const cli = packagesIn(path.join(ROOT, 'dist', 'cli.cjs'))
    expect(cli).toContain('@oclif/core')
    expect(cli).toContain('@oclif/plugin-help') // bundled: the help command
    for (const heavy of [...HEAVY, ...PLUGIN_ONLY]) expect(cli, heavy).not.toContain(heavy)
  })

  it('the lazily loaded libraries are marked in src/lazy.ts alone: one vendor file per mark, no import() of them elsewhere', () => {
    const marks = [...fs.readFileSync(path.join(ROOT, 'src', 'lazy.ts'), 'utf8').matchAll(/\bimport\('([^']+)'\).*\/\/ vendor: ([a-z0-9-]+) /g)].map((m) => ({specifier: m[1], name: m[2]}))
    expect(marks.map((m) => m.name).sort()).toEqual(fs.readdirSync(path.join(ROOT, 'dist', 'vendor')).filter((f) => f.endsWith('.cjs')).map((f) => f.replace(/\.cjs$/, '')).sort())
    const lazyFiles = new Set(marks.map((m) => (m.specifier.startsWith('.') ? path.join(ROOT, 'src', m.specifier.replace(/\.js$/, '.ts')) : m.specifier)))
    const walk = (dir: string): string[] => fs.readdirSync(dir, {withFileTypes: true}).flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : []))
    const elsewhere: string[] = []
    for (const file of walk(path.join(ROOT, 'src'))) {
      if (file === path.join(ROOT, 'src', 'lazy.ts')) continue
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?<!typeof )\bimport\('([^']+)'\)/g)) {
        const target = m[1].startsWith('.') ? path.resolve(path.dirname(file), m[1].replace(/\.js$/, '.ts')) : m[1]
        if (lazyFiles.has(target)) elsewhere.push(`${path.relative(ROOT, file)}: import('${m[1]}')`)
      }
    }
    expect(elsewhere).toEqual([])
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
