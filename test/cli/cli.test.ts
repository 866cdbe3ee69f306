import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {COMMAND_ALIASES, COMMAND_IDS, loadCommands} from '../../src/cli/cli.js'
import type {SessionsListResult} from '../../src/commands/sessions/list.js'
import {baseEnv, ROOT, tempDir} from '../support/cli.js'

/** oclif's id for a command file: path segments joined by ':', with `index` naming its topic. */
function idsUnder(dir: string, prefix: string[] = []): string[] {
  return fs.readdirSync(dir, {withFileTypes: true}).flatMap((d) => {
    if (d.isDirectory()) return idsUnder(path.join(dir, d.name), [...prefix, d.name])
    if (!d.name.endsWith('.ts')) return []
    const base = d.name.slice(0, -3)
    return [(base === 'index' ? prefix : [...prefix, base]).join(':')]
  })
}

describe('src/cli/cli.ts (the bundle entry, oclif explicit discovery)', () => {
  it('lists every command file under src/commands, so none is missing from the bundle (and oclif\'s help command), each loading its command', async () => {
    expect([...COMMAND_IDS].sort()).toEqual([...idsUnder(path.join(ROOT, 'src', 'commands')), 'help'].sort())
    const all = await loadCommands()
    expect(Object.keys(all).sort()).toEqual([...COMMAND_IDS].sort())
    for (const [id, c] of Object.entries(all)) expect(typeof c.run, id).toBe('function')
  })

  it('configures no oclif plugins: help and autocomplete are listed commands, not located and read at every start', () => {
    const pjson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {oclif: Record<string, unknown>}
    expect(pjson.oclif.plugins).toBeUndefined()
    expect(pjson.oclif.devPlugins).toBeUndefined()
  })

  it('and the committed manifest has exactly those ids, and the aliases execute loads a command for', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {aliases?: string[]; hiddenAliases?: string[]}>}
    expect(Object.keys(manifest.commands).sort()).toEqual([...COMMAND_IDS].sort())
    const aliases = Object.entries(manifest.commands).flatMap(([id, c]) => [...(c.aliases ?? []), ...(c.hiddenAliases ?? [])].map((a) => [a, id]))
    expect(Object.fromEntries(aliases)).toEqual(COMMAND_ALIASES)
  })

  it('bin/run.js in a checkout that was never built says to build it, without a stack trace', () => {
    const dir = tempDir()
    fs.cpSync(path.join(ROOT, 'bin'), path.join(dir, 'bin'), {recursive: true})
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'))
    const r = spawnSync(process.execPath, [path.join(dir, 'bin', 'run.js'), '--version'], {encoding: 'utf8', env: baseEnv(tempDir())})
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('Error: clawkit is not built')
    expect(r.stderr).toContain('npm run build')
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('bin/run.js with a damaged bundle says it could not start, with the stack only under DEBUG', () => {
    const dir = tempDir()
    fs.cpSync(path.join(ROOT, 'bin'), path.join(dir, 'bin'), {recursive: true})
    fs.cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), {recursive: true})
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'))
    fs.writeFileSync(path.join(dir, 'dist', 'cli.cjs'), "throw new Error('damaged bundle')\n")
    const run = (extra: Record<string, string>) => spawnSync(process.execPath, [path.join(dir, 'bin', 'run.js'), '--version'], {encoding: 'utf8', env: baseEnv(tempDir(), extra)})
    const plain = run({})
    expect(plain.status).toBe(1)
    expect(plain.stderr).toContain('Error: clawkit could not start: damaged bundle')
    expect(plain.stderr).not.toMatch(/\n\s+at /)
    expect(run({DEBUG: '1'}).stderr).toMatch(/\n\s+at /)
  })

  it('bin/run.js checks the same minimum Node version as package.json engines', () => {
    const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {engines: {node: string}}).engines.node
    const run = fs.readFileSync(path.join(ROOT, 'bin', 'run.js'), 'utf8')
    const min = /const MIN_NODE = \[(\d+), (\d+)\]/.exec(run)
    expect(min, 'MIN_NODE in bin/run.js').not.toBeNull()
    expect(engines).toBe(`>=${min![1]}.${min![2]}`)
  })

  it('every command id sorts the same by code unit as by localeCompare (scripts/bundle.js patches oclif to the former)', () => {
    // oclif sorts its command list with localeCompare, whose first call builds ICU's collator on every start; the bundle
    // compares code units instead. That is only the same list while ids stay lowercase ASCII and ':'.
    const ids = Object.keys((JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}).commands)
    expect(ids).toEqual(expect.arrayContaining(['help', 'autocomplete', 'autocomplete:script', 'sessions:list']))
    const byCodeUnit = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    expect(byCodeUnit).toEqual([...ids].sort((a, b) => a.localeCompare(b)))
    const bundle = fs.readFileSync(path.join(ROOT, 'dist', 'cli.cjs'), 'utf8')
    // The bundle is minified (scripts/bundle.js): compared without whitespace.
    expect(bundle.replace(/\s+/g, '')).toContain('.sort((a,b)=>a.id<b.id?-1:a.id>b.id?1:0)')
  })
})

describe('bin/dev.js', () => {
  it('runs the TypeScript sources (src/cli/cli.ts through tsx), not the bundle', () => {
    const trace = path.join(tempDir(), 'imports.txt')
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'dev.js'), 'sessions', 'list', '--json', '--state-dir', 'examples/demo-state'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: baseEnv(tempDir(), {NODE_OPTIONS: `--import ${path.join(ROOT, 'test/support/trace-imports.mjs')}`, CLAWKIT_TRACE_IMPORTS: trace}),
    })
    expect(r.status, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as SessionsListResult).count).toBe(2)
    const loaded = fs.readFileSync(trace, 'utf8')
    expect(loaded).toContain(`${path.join(ROOT, 'src', 'commands', 'sessions', 'list.ts')}`)
    expect(loaded).not.toContain(path.join(ROOT, 'dist', 'cli.cjs'))
  }, 60_000)
})
