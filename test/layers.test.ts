// The layers of src/ (docs/architecture.md, "The layers"): every import runs from a higher layer to a lower one, but
// for the two on purpose (commands extend the CLI's base command; lazy.ts names the heavy modules it loads), no import
// circle exists between files, and no store backend imports another backend's folder. Imports are read with
// TypeScript's parser: static, type-only and literal dynamic imports alike.
import fs from 'node:fs'
import path from 'node:path'

import ts from 'typescript'
import {describe, expect, it} from 'vitest'

const SRC = path.resolve(__dirname, '..', 'src')

/**
 * Each top-level folder or file of src/ with its layer, highest first. A module imports only from layers below its
 * own (within its own folder, anything). Low layers hold what every layer above uses: text helpers, OS guards, errors.
 */
const LAYERS: Record<string, number> = {
  'cli/': 11,
  'commands/': 10,
  'render/': 9,
  'mcp/': 9,
  'status/': 8,
  'fleet/': 8,
  'index.ts': 8,
  'catalog/': 7,
  'agent/': 6,
  'doctor/': 6,
  'sessions/': 6,
  'channels/': 5,
  'store/': 4,
  'config/': 3,
  'settings.ts': 3,
  'flags.ts': 3,
  'error-report.ts': 2,
  'os/': 2,
  'text/': 1,
  'util/': 1,
  'errors.ts': 1,
  'suggest.ts': 1,
  'lazy.ts': 1,
}

/** The imports that run upward on purpose, each with its reason (docs/architecture.md names both). `*`: any room. */
const UPWARD_ON_PURPOSE: Record<string, string> = {
  'commands/ -> cli/': 'a command extends the CLI\'s base command (and the autocomplete commands run its plugin)',
  'lazy.ts -> *': 'lazy.ts names each heavy module it loads lazily (the SDK slices agent/sdk.ts and mcp/sdk.ts), in one place for the bundler',
}

const onPurpose = (pair: string): boolean => Object.keys(UPWARD_ON_PURPOSE).some((k) => (k.endsWith('*') ? pair.startsWith(k.slice(0, -1)) : pair === k))

/** The store's backends: none imports another's folder (shared vocabulary is the store's root). */
const BACKENDS = ['store/file/', 'store/sqlite/', 'store/pg/']

function* sourceFiles(dir: string): Generator<string> {
  for (const d of fs.readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, d.name)
    if (d.isDirectory()) yield* sourceFiles(p)
    else if (d.name.endsWith('.ts')) yield p
  }
}

/** Every relative module a file imports (`import`, `export ... from`, `import type`, `import('literal')`), as paths under src/. */
function importsOf(file: string): string[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const out: string[] = []
  const add = (spec: string) => {
    if (!spec.startsWith('.')) return
    const target = path.relative(SRC, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '.ts')
    out.push(target.split(path.sep).join('/'))
  }
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text)
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) add(node.arguments[0].text)
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

const roomOf = (rel: string) => (rel.includes('/') ? `${rel.slice(0, rel.indexOf('/'))}/` : rel)

function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>()
  for (const file of sourceFiles(SRC)) g.set(path.relative(SRC, file).split(path.sep).join('/'), importsOf(file))
  return g
}

/** The file-level import circles (strongly connected components of more than one file, or a file importing itself). */
function circles(g: Map<string, string[]>): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const out: string[][] = []
  const strong = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue
      if (!idx.has(w)) {
        strong(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = []
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        on.delete(w)
        comp.push(w)
        if (w === v) break
      }
      if (comp.length > 1 || (g.get(v) ?? []).includes(v)) out.push(comp.sort())
    }
  }
  for (const v of g.keys()) if (!idx.has(v)) strong(v)
  return out
}

/** `<room> -> <room>` for every import from a layer to one at its height or above. */
function upwardImports(g: Map<string, string[]>): string[] {
  const upward = new Set<string>()
  for (const [from, targets] of g) {
    for (const to of targets) {
      const [a, b] = [roomOf(from), roomOf(to)]
      if (a !== b && LAYERS[b] >= LAYERS[a]) upward.add(`${a} -> ${b}`)
    }
  }
  return [...upward].sort()
}

/** `<file> -> <file>` for every import from one store backend's folder into another's. */
function backendCrossings(g: Map<string, string[]>): string[] {
  const crossing: string[] = []
  for (const [from, targets] of g) {
    const mine = BACKENDS.find((b) => from.startsWith(b))
    if (!mine) continue
    for (const to of targets) if (BACKENDS.some((b) => b !== mine && to.startsWith(b))) crossing.push(`${from} -> ${to}`)
  }
  return crossing
}

describe('the layers of src/', () => {
  const g = graph()

  it('every top-level folder and file of src/ has a layer', () => {
    expect([...new Set([...g.keys()].map(roomOf))].filter((r) => LAYERS[r] === undefined)).toEqual([])
  })

  it('imports run downward, but for the two upward on purpose (each still needed)', () => {
    const upward = upwardImports(g)
    expect(upward.filter((p) => !onPurpose(p))).toEqual([])
    for (const k of Object.keys(UPWARD_ON_PURPOSE)) expect(upward.some((p) => onPurpose(p) && (k.endsWith('*') ? p.startsWith(k.slice(0, -1)) : p === k)), k).toBe(true)
  })

  it('no import circle between files', () => {
    expect(circles(g)).toEqual([])
  })

  it('no store backend imports another backend\'s folder', () => {
    expect(backendCrossings(g)).toEqual([])
  })

  it('the rules catch what they are for: an upward import, a circle, a backend crossing', () => {
    const g2 = new Map<string, string[]>([
      ['store/a.ts', ['render/x.ts']],
      ['render/x.ts', ['store/a.ts']],
      ['store/sqlite/y.ts', ['store/file/z.ts']],
      ['store/file/z.ts', []],
    ])
    expect(circles(g2)).toEqual([['render/x.ts', 'store/a.ts']])
    expect(upwardImports(g2)).toEqual(['store/ -> render/'])
    expect(backendCrossings(g2)).toEqual(['store/sqlite/y.ts -> store/file/z.ts'])
  })
})
