import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

import {describe, expect, it} from 'vitest'

import {commandOf} from '../../src/cli/command-ids.js'
import {BUNDLE_WRAPPER} from '../../src/cli/load-bundle.js'
import {baseEnv as sharedCacheEnv, copyFixture, json, ROOT, runCli, tempDir, TWO_AGENTS} from '../support/cli.js'

/** These tests are about the cache: each HOME gets its own, where clawkit puts it by default, not the run's shared one. */
const baseEnv = (home: string, extra: Record<string, string | undefined> = {}) => sharedCacheEnv(home, {CLAWKIT_CACHE_DIR: path.join(home, '.cache', 'clawkit'), ...extra})

// bin/run.js loads the bundle through its own code cache on every Node version (src/cli/load-bundle.ts says why);
// Node 22+ also has a compile cache of its own, which boot.ts turns on for the other modules.
const nodeHasCompileCache = typeof ((await import('node:module')).default as {enableCompileCache?: unknown}).enableCompileCache === 'function'
const describeOnNode22Plus = nodeHasCompileCache ? describe : describe.skip

const cacheFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [])
const codeCaches = (dir: string) => cacheFiles(dir).filter((n) => n.endsWith('.v8'))
/** A cache file's name for its command (`sessions.list`, `start`): what follows the build and runtime keys. */
const nameOf = (file: string) => file.split('-').slice(3).join('-').replace(/\.v8$/, '')
/** Each cache file's modification time, by its command's name. */
const stamps = (dir: string) => Object.fromEntries(codeCaches(dir).map((f) => [nameOf(f), fs.statSync(path.join(dir, f)).mtimeMs]))
const sizeOf = (dir: string, name: string) => fs.statSync(path.join(dir, codeCaches(dir).find((f) => nameOf(f) === name)!)).size

describe('the CLI bundle through V8 code cache', () => {
  it('the first run writes a private cache of its command at exit (and the start cache); the next run reads it and writes nothing', async () => {
    const home = tempDir()
    const env = baseEnv(home)
    const dir = path.join(home, '.cache', 'clawkit', 'code-cache')
    const state = copyFixture(TWO_AGENTS)
    const first = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env})
    expect(first.code, first.stderr).toBe(0)
    const files = cacheFiles(dir)
    expect(files.map(nameOf)).toEqual(['sessions.list', 'start'])
    // The start cache was written before the command ran: it holds none of the command's code, which the list's does.
    expect(sizeOf(dir, 'start')).toBeLessThan(sizeOf(dir, 'sessions.list'))
    for (const f of files) expect(f).toMatch(/^cli\.cjs-[0-9a-f]{16}-[0-9a-f]{16}-[a-z.]+\.v8$/)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    for (const f of files) expect(fs.statSync(path.join(dir, f)).mode & 0o777).toBe(0o600)
    const written = stamps(dir)
    const second = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env})
    expect(second.code, second.stderr).toBe(0)
    expect(json(second).sessions.map((s: {key: string}) => s.key)).toEqual(json(first).sessions.map((s: {key: string}) => s.key))
    expect(stamps(dir)).toEqual(written)
  })

  it('each command keeps a cache of its own, written once, under the name its arguments give (an alias its own); --version uses the start cache', async () => {
    const home = tempDir()
    const env = baseEnv(home)
    const dir = path.join(home, '.cache', 'clawkit', 'code-cache')
    const state = copyFixture(TWO_AGENTS)
    // --version runs no clawkit command: its cache is the start cache only.
    expect((await runCli(['--version'], {env})).code).toBe(0)
    expect(codeCaches(dir).map(nameOf)).toEqual(['start'])
    const startOnly = stamps(dir)
    expect((await runCli(['status', '--json', '--state-dir', state], {env})).code).toBe(0)
    expect(codeCaches(dir).map(nameOf)).toEqual(['start', 'status'])
    // The start cache stays as it was; status's holds more than start-up's code (the command's own).
    expect(stamps(dir).start).toBe(startOnly.start)
    expect(sizeOf(dir, 'status')).toBeGreaterThan(sizeOf(dir, 'start'))
    const afterStatus = stamps(dir)
    for (const args of [['status', '--json', '--state-dir', state], ['--version']]) expect((await runCli(args, {env})).code).toBe(0)
    expect(stamps(dir)).toEqual(afterStatus)
    // A positional argument is not part of the name (`sessions history <key>` is sessions:history's); an alias has its own.
    for (const cmd of ['history', 'tail', 'history', 'tail']) expect((await runCli(['sessions', cmd, 'agent:main:main', '--json', '--state-dir', state], {env})).code).toBe(0)
    expect(codeCaches(dir).map(nameOf)).toEqual(['sessions.history', 'sessions.tail', 'start', 'status'])
    const settled = stamps(dir)
    expect((await runCli(['sessions', 'history', 'agent:main:main', '--json', '--state-dir', state], {env})).code).toBe(0)
    expect(stamps(dir)).toEqual(settled)
  })

  it('a run that stops on a bad flag does not write its command\'s cache (too little of its code ran): the next good run does', async () => {
    const home = tempDir()
    const env = baseEnv(home)
    const dir = path.join(home, '.cache', 'clawkit', 'code-cache')
    const state = copyFixture(TWO_AGENTS)
    expect((await runCli(['sessions', 'list', '--limit', 'abc', '--state-dir', state], {env})).code).toBe(2)
    // Only the start cache, written as the bundle loaded (no cache existed), before the command ran.
    expect(codeCaches(dir).map(nameOf)).toEqual(['start'])
    expect((await runCli(['sessions', 'list', '--json', '--state-dir', state], {env})).code).toBe(0)
    expect(codeCaches(dir).map(nameOf)).toEqual(['sessions.list', 'start'])
    // An unknown command (under a topic that is a command itself) writes none either.
    const before = stamps(dir)
    expect((await runCli(['sessions', 'nosuch', '--state-dir', state], {env})).code).toBe(2)
    expect(stamps(dir)).toEqual(before)
  })

  it('two runs of one command at once both end well and leave one whole cache, which the next run reads without rewriting', async () => {
    const home = tempDir()
    const env = baseEnv(home)
    const dir = path.join(home, '.cache', 'clawkit', 'code-cache')
    const state = copyFixture(TWO_AGENTS)
    const both = await Promise.all([1, 2].map(() => runCli(['status', '--json', '--state-dir', state], {env})))
    for (const r of both) expect(r.code, r.stderr).toBe(0)
    expect(codeCaches(dir).map(nameOf)).toEqual(['start', 'status'])
    expect(cacheFiles(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
    const before = stamps(dir)
    expect((await runCli(['status', '--json', '--state-dir', state], {env})).code).toBe(0)
    expect(stamps(dir)).toEqual(before)
  })

  it('commandOf: the command oclif will run, named as the arguments name it (the cache\'s name), before any bundle is loaded', () => {
    expect(commandOf(['sessions', 'history', 'main', '--json'])).toEqual({name: 'sessions:history', id: 'sessions:history'})
    expect(commandOf(['sessions', 'tail', 'agent:main:main'])).toEqual({name: 'sessions:tail', id: 'sessions:history'})
    expect(commandOf(['sessions', '--json'])).toEqual({name: 'sessions', id: 'sessions'})
    expect(commandOf(['agent', '-m', 'hi'])).toEqual({name: 'agent', id: 'agent'})
    expect(commandOf(['undo', '../../x'])).toEqual({name: 'undo', id: 'undo'})
    expect(commandOf(['nosuch', 'list'])).toBeUndefined()
    expect(commandOf(['--version'])).toBeUndefined()
    expect(commandOf([])).toBeUndefined()
  })

  it('import() from the bundle works from a cached script too (clawkit importing the ES-module autocomplete plugin)', async () => {
    // A vm.Script's own import() fails once it comes from the cache; scripts/bundle.js routes them through load-bundle.
    const env = baseEnv(tempDir())
    for (const run of ['miss', 'hit']) {
      const r = await runCli(['autocomplete', 'bash'], {env})
      expect(r.code, `${run}: ${r.stderr}`).toBe(0)
      expect(r.stdout, run).toContain('Setup Instructions for CLAWKIT CLI Autocomplete')
      expect(r.stderr, run).not.toMatch(/dynamic import|ExperimentalWarning/)
    }
  })

  it('a corrupt cache file is rejected by V8, the command still runs, and the file is replaced', async () => {
    const home = tempDir()
    const env = baseEnv(home)
    const dir = path.join(home, '.cache', 'clawkit', 'code-cache')
    expect((await runCli(['--version'], {env})).code).toBe(0)
    const [name] = codeCaches(dir)
    const garbage = Buffer.alloc(4096, 0x5a)
    fs.writeFileSync(path.join(dir, name), garbage)
    const state = copyFixture(TWO_AGENTS)
    const r = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(json(r).sessions.map((s: {key: string}) => s.key)).toEqual(['agent:main:main'])
    // The refused start cache is removed (the next --version writes it again); the list wrote its own.
    expect(fs.existsSync(path.join(dir, name))).toBe(false)
    expect(codeCaches(dir).map(nameOf)).toEqual(['sessions.list'])
    expect((await runCli(['--version'], {env})).code).toBe(0)
    expect(fs.readFileSync(path.join(dir, name)).equals(garbage)).toBe(false)
  })

  it('an unusable cache dir (a file stands where the dir should be) only costs speed: same output, nothing on stderr', async () => {
    const home = tempDir()
    const blocker = path.join(home, 'not-a-dir')
    fs.writeFileSync(blocker, 'x')
    const env = baseEnv(home, {CLAWKIT_CACHE_DIR: blocker})
    const state = copyFixture(TWO_AGENTS)
    const r = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(json(r).sessions.map((s: {key: string}) => s.key)).toEqual(['agent:main:main'])
    expect(fs.readFileSync(blocker, 'utf8')).toBe('x')
  })

  it('caches of earlier builds are removed when a new one is written; this build\'s caches for other runtimes and other files stay', async () => {
    const home = tempDir()
    const dir = path.join(home, '.cache', 'clawkit', 'code-cache')
    expect((await runCli(['--version'], {env: baseEnv(home)})).code).toBe(0)
    const [current] = codeCaches(dir)
    const fileKey = current.split('-')[1]
    fs.rmSync(path.join(dir, current)) // the next run is a miss, so it writes
    const oldBuild = 'cli.cjs-0000000000000000-0000000000000000.v8'
    const otherRuntime = `cli.cjs-${fileKey}-ffffffffffffffff.v8`
    // (`.v8.names` files held the names in an earlier layout; an earlier build's are removed with its cache.)
    for (const name of [oldBuild, `${oldBuild}.names`, otherRuntime, 'notes.txt']) fs.writeFileSync(path.join(dir, name), 'x')
    expect((await runCli(['--version'], {env: baseEnv(home)})).code).toBe(0)
    expect(cacheFiles(dir)).toEqual([current, otherRuntime, 'notes.txt'].sort())
  })

  it('runs with other V8 flags (NODE_OPTIONS) keep a cache of their own instead of rejecting and rewriting each other\'s', async () => {
    const home = tempDir()
    const dir = path.join(home, '.cache', 'clawkit', 'code-cache')
    const plain = baseEnv(home)
    const flagged = baseEnv(home, {NODE_OPTIONS: '--max-old-space-size=300'})
    for (const env of [plain, flagged]) expect((await runCli(['--version'], {env})).code).toBe(0)
    const files = cacheFiles(dir)
    expect(codeCaches(dir)).toHaveLength(2)
    const stamps = files.map((f) => fs.statSync(path.join(dir, f)).mtimeMs)
    for (const env of [plain, flagged, plain]) expect((await runCli(['--version'], {env})).code).toBe(0)
    expect(cacheFiles(dir)).toEqual(files)
    expect(files.map((f) => fs.statSync(path.join(dir, f)).mtimeMs)).toEqual(stamps)
  })

  it('a cache dir that others can write to is never used: nothing is read from it or written to it', async () => {
    const home = tempDir()
    const dir = path.join(home, 'shared-cache')
    fs.mkdirSync(path.join(dir, 'code-cache'), {recursive: true})
    fs.chmodSync(path.join(dir, 'code-cache'), 0o777)
    const env = baseEnv(home, {CLAWKIT_CACHE_DIR: dir})
    const state = copyFixture(TWO_AGENTS)
    const r = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).sessions.map((s: {key: string}) => s.key)).toEqual(['agent:main:main'])
    expect(cacheFiles(path.join(dir, 'code-cache'))).toEqual([])
  })
})

describe('loadBundle keys the cache by file identity', () => {
  /** Runs `body` in a fresh ES module process that has `loadBundle` and `createRequire`; returns what it printed as JSON. */
  function runLoader(body: string): any {
    const script = `import {createRequire} from 'node:module'
const {loadBundle} = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'cli', 'load-bundle.js')).href)})
${body}`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'})
    expect(r.status, r.stderr).toBe(0)
    return JSON.parse(r.stdout)
  }

  /** Loads `file` in a fresh process: what it exported and the cache use. */
  const load = (file: string, cacheDir: string) =>
    runLoader(`const r = loadBundle(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)})
console.log(JSON.stringify({value: r.exports, cache: r.cache}))`)

  it('a file rewritten with the same length never runs the old code (V8 itself checks only the length)', () => {
    const dir = tempDir()
    const file = path.join(dir, 'bundle.cjs')
    const cacheDir = path.join(dir, 'cache')
    fs.writeFileSync(file, "module.exports = 'A'\n")
    expect(load(file, cacheDir)).toEqual({value: 'A', cache: 'miss'})
    expect(load(file, cacheDir)).toEqual({value: 'A', cache: 'hit'})
    fs.writeFileSync(file, "module.exports = 'B'\n")
    expect(load(file, cacheDir)).toEqual({value: 'B', cache: 'miss'})
    expect(load(file, cacheDir)).toEqual({value: 'B', cache: 'hit'})
  })

  it('a path through a symlinked dir registers the module where require() finds it: one instance, not two', () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, 'real'))
    fs.writeFileSync(path.join(dir, 'real', 'bundle.cjs'), 'module.exports = {made: Math.random()}\n')
    fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'))
    const out = runLoader(`const r = loadBundle(${JSON.stringify(path.join(dir, 'link', 'bundle.cjs'))}, ${JSON.stringify(path.join(dir, 'cache'))})
const again = createRequire(import.meta.url)(${JSON.stringify(path.join(dir, 'real', 'bundle.cjs'))})
console.log(JSON.stringify({same: r.exports === again, cache: r.cache}))`)
    expect(out).toEqual({same: true, cache: 'miss'})
  })

  it('without a cache dir the file is a plain require()', () => {
    const file = path.join(tempDir(), 'bundle.cjs')
    fs.writeFileSync(file, 'module.exports = 42\n')
    expect(runLoader(`console.log(JSON.stringify(loadBundle(${JSON.stringify(file)}, undefined)))`)).toEqual({exports: 42, cache: 'off'})
  })

  it('a file written wrapped (as dist/cli.cjs is) runs as the same module with a cache or without, and is never wrapped twice', () => {
    const dir = tempDir()
    const file = path.join(dir, 'bundle.cjs')
    fs.writeFileSync(file, `${BUNDLE_WRAPPER[0]}"use strict"; module.exports = {dir: __dirname, strict: (function () { return this })() === undefined}${BUNDLE_WRAPPER[1]}`)
    for (const [cacheDir, cache] of [[path.join(dir, 'cache'), 'miss'], [path.join(dir, 'cache'), 'hit'], [undefined, 'off']] as const) {
      expect(runLoader(`console.log(JSON.stringify(loadBundle(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)})))`)).toEqual({exports: {dir, strict: true}, cache})
    }
    // require() of the file itself is no module: its exports are empty (the build's own scripts load it through loadBundle).
    expect(runLoader(`console.log(JSON.stringify(createRequire(import.meta.url)(${JSON.stringify(file)})))`)).toEqual({})
  })

  it('dist/cli.cjs is written wrapped, and loads without a cache dir too (scripts/manifest.js loads it so)', () => {
    const text = fs.readFileSync(path.join(ROOT, 'dist', 'cli.cjs'), 'latin1')
    expect(text.startsWith(BUNDLE_WRAPPER[0])).toBe(true)
    expect(text.endsWith(BUNDLE_WRAPPER[1])).toBe(true)
    const out = runLoader(`const r = loadBundle(${JSON.stringify(path.join(ROOT, 'dist', 'cli.cjs'))}, undefined)
console.log(JSON.stringify({cache: r.cache, ids: r.exports.COMMAND_IDS.length}))`)
    expect(out).toEqual({cache: 'off', ids: expect.any(Number)})
    expect(out.ids).toBeGreaterThan(20)
  })
})

describeOnNode22Plus('Node 22+: its own compile cache, for what is not in the bundle', () => {
  it("is kept in clawkit's cache dir, created 0700, never in the shared temp dir", async () => {
    const home = tempDir()
    // The autocomplete plugin's modules are imported from node_modules, so Node's cache has something to store.
    const r = await runCli(['autocomplete', 'script', 'bash'], {env: baseEnv(home)})
    expect(r.code, r.stderr).toBe(0)
    const dir = path.join(home, '.cache', 'clawkit', 'compile-cache')
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    expect(fs.readdirSync(dir).length).toBeGreaterThan(0)
  })
})

describe('the bundle files run in strict mode, as the ES module bundle before them did', () => {
  it('dist/cli.cjs, dist/boot.cjs and every dist/vendor file open with the directive (a banner line before it would void it)', () => {
    const files = [path.join(ROOT, 'dist', 'cli.cjs'), path.join(ROOT, 'dist', 'boot.cjs'), ...fs.readdirSync(path.join(ROOT, 'dist', 'vendor')).filter((f) => f.endsWith('.cjs')).map((f) => path.join(ROOT, 'dist', 'vendor', f))]
    expect(files.length).toBeGreaterThan(3)
    // dist/cli.cjs is written inside its wrapper function (BUNDLE_WRAPPER): the directive opens the function's body.
    const body = (text: string) => (text.startsWith(BUNDLE_WRAPPER[0]) ? text.slice(BUNDLE_WRAPPER[0].length) : text)
    for (const f of files) expect(body(fs.readFileSync(f, 'utf8')).startsWith('"use strict";'), f).toBe(true)
  })
})

describe('dist/cli.cjs is ASCII, so that load-bundle decodes it as Latin-1 (~3-5 ms less than UTF-8 at every start)', () => {
  it('has no byte above 0x7f; a failure names the lines (esbuild keeps comments in class bodies and regex literals as written)', () => {
    const text = fs.readFileSync(path.join(ROOT, 'dist', 'cli.cjs'), 'latin1')
    const offending = text
      .split('\n')
      .map((line, i) => ({line: i + 1, text: line}))
      .filter((l) => /[^\x00-\x7f]/.test(l.text))
      .map((l) => `${l.line}: ${l.text.trim().slice(0, 100)}`)
    expect(offending).toEqual([])
  })
})
