// The README and docs/ kept true by what they can be checked against cheaply: the oclif manifest (every command and
// flag), schemas/ (every --json document), src/errors.ts (every exit code), the files links point to, and the README's
// own limits (a newcomer's page: under 250 lines, none over 120 characters).
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {ExitCode} from '../src/errors.js'
import {ROOT} from './support/cli.js'

interface ManifestFlag {
  char?: string
  hidden?: boolean
  allowNo?: boolean
}
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {hidden?: boolean; flags: Record<string, ManifestFlag>}>}
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8')
const readme = read('README.md')

/** oclif's own commands: their help is oclif's, and they have no page. */
const OCLIF_OWN = new Set(['help', 'autocomplete'])
/** Flags every command has, documented once on docs/cli.md (`--help` is oclif's, when it is in the manifest). */
const GLOBAL = new Set(['json', 'state-dir', 'profile', 'dev', 'help'])
/** The page of each command family: the first word of the command id. */
const PAGE: Record<string, string> = {
  agent: 'docs/agent.md',
  sessions: 'docs/sessions.md',
  status: 'docs/status.md',
  doctor: 'docs/doctor.md',
  message: 'docs/message.md',
  store: 'docs/store.md',
  sync: 'docs/fleet.md',
  index: 'docs/catalog.md',
  mcp: 'docs/mcp.md',
  undo: 'docs/journal.md',
}

const commands = Object.entries(manifest.commands).filter(([id, c]) => !c.hidden && !OCLIF_OWN.has(id.split(':')[0]))

describe('README: a newcomer\'s page', () => {
  it('is under 250 lines, none over 120 characters', () => {
    const lines = readme.trimEnd().split('\n')
    expect(lines.length).toBeLessThan(250)
    expect(lines.map((l, i) => [i + 1, [...l].length] as const).filter(([, n]) => n > 120)).toEqual([])
  })

  it('keeps the two commands a clone needs, npm ci and npm test (CI runs the latter: .ci/run)', () => {
    const shell = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
    expect(shell).toMatch(/^npm ci(\s|$)/m)
    expect(shell).toMatch(/^npm test(\s|$)/m)
    expect(read('.ci/run')).toMatch(/^npm test$/m)
  })

  it('has an example of every command in its tour', () => {
    const examples = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n')).filter((l) => l.startsWith('clawkit '))
    const missing = commands.map(([id]) => `clawkit ${id.replaceAll(':', ' ')}`).filter((cmd) => !examples.some((l) => l === cmd || l.startsWith(`${cmd} `)))
    expect(missing).toEqual([])
  })
})

describe('docs/: the reference', () => {
  it('every command has its family\'s page, and every flag it takes is on that page (global ones on docs/cli.md)', () => {
    const cli = read('docs/cli.md')
    const missing: string[] = []
    for (const [id, c] of commands) {
      const page = PAGE[id.split(':')[0]]
      expect(page, `${id} has no docs page in PAGE`).toBeDefined()
      const text = read(page)
      for (const [name, f] of Object.entries(c.flags)) {
        if (f.hidden) continue
        const where = GLOBAL.has(name) ? cli : text
        const forms = f.allowNo ? [`--${name}`, `--no-${name}`] : [`--${name}`]
        if (!forms.some((form) => new RegExp(`${form}(?![\\w-])`).test(where))) missing.push(`${id} --${name} (${GLOBAL.has(name) ? 'docs/cli.md' : page})`)
        if (f.char && !new RegExp(`\`-${f.char}[\`,]`).test(where)) missing.push(`${id} -${f.char} (${page})`)
      }
    }
    expect(missing).toEqual([])
  })

  it('every schema in schemas/ is named in docs/cli.md\'s list and, as schemas/<name>.schema.json, on a page', () => {
    const schemas = fs.readdirSync(path.join(ROOT, 'schemas')).filter((f) => f.endsWith('.schema.json')).map((f) => f.replace(/\.schema\.json$/, ''))
    expect(schemas.length).toBeGreaterThan(10)
    const cli = read('docs/cli.md')
    const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => read(path.join('docs', f))).join('\n')
    expect(schemas.filter((s) => !cli.includes(`| \`${s}\` |`))).toEqual([])
    expect(schemas.filter((s) => !docs.includes(`schemas/${s}.schema.json`))).toEqual([])
  })

  it('every exit code clawkit uses is in docs/cli.md\'s table and in the README\'s', () => {
    const cli = read('docs/cli.md')
    for (const code of Object.values(ExitCode)) {
      expect(cli, `exit ${code}`).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'))
      expect(readme, `exit ${code}`).toMatch(new RegExp(`^\\| (\\d+, )*${code}(, \\d+)* \\|`, 'm'))
    }
  })

  it('every relative link of the README and docs/ names a file that exists', () => {
    const broken: string[] = []
    for (const file of ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]) {
      for (const m of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].split('#')[0]
        if (!target || /^[a-z]+:/.test(target)) continue
        if (!fs.existsSync(path.join(ROOT, path.dirname(file), target))) broken.push(`${file}: ${m[1]}`)
      }
    }
    expect(broken).toEqual([])
  })
})
