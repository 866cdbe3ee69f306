// The store boundary (issue 15): outside src/store/, no module builds a session file's path, takes a lock, or reads
// or writes a transcript or an index. Only the store knows the layout, so a new backend changes nothing else. This
// reads every source file with TypeScript's parser (comments and prose in messages do not count, code does).
import fs from 'node:fs'
import path from 'node:path'

import ts from 'typescript'
import {describe, expect, it} from 'vitest'

const SRC = path.resolve(__dirname, '..', '..', 'src')

/**
 * The few exceptions, each with its reason. Keep it short: a new entry needs a reason that is not "it was easier".
 * Keys are `<path under src/>: <what the rule saw>`.
 */
const ALLOWED: Record<string, string> = {}

/** Store modules whose whole job is session-file I/O: features reach them through SessionStore or a seam. */
const IO_MODULES = [
  'store/lock', // OpenClaw's lock-file protocol
  'store/fs-util', // atomic writes of store files
  'store/file/transcript-stream', // whole-transcript streaming (SessionStore.readLines)
  'store/file/context-read', // a transcript's model context (withTranscript)
  'store/file/idempotency', // idempotency-key lookup in a transcript
  'store/file/lineage', // archives of a key (SessionStore.sessionsOf)
  'store/file/index-scan', // entry-by-entry index reads
  'store/reset', // reset's lock order
  'store/sqlite/driver', // database connections
  'store/sqlite/read',
  'store/sqlite/write', // and the write side's pieces:
  'store/sqlite/transaction',
  'store/sqlite/entry-rows',
  'store/sqlite/projection',
  'store/sqlite/append',
  'store/sqlite/ownership',
  'store/sqlite/export-read',
]
/** Session I/O functions of mixed store modules (the rest of those modules is pure: names, ids, parsing). */
const IO_FUNCTIONS = new Set(['readTranscript', 'tailTranscript', 'readTranscriptHeader', 'readLeafId', 'appendEntries', 'appendEntriesLocked', 'resolveTranscriptPath', 'parseTranscript', 'readStoreFile'])
const FS_MODULES = new Set(['node:fs', 'node:fs/promises', 'fs', 'fs/promises'])

function* sourceFiles(dir: string): Generator<string> {
  for (const d of fs.readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, d.name)
    if (d.isDirectory()) yield* sourceFiles(p)
    else if (d.name.endsWith('.ts')) yield p
  }
}

/** A literal naming a session file: `sessions.json`, a `.jsonl` transcript or archive, a `.lock` file. */
function namesSessionFile(text: string, regex: boolean): string | undefined {
  if (regex) {
    const m = /\\\.(jsonl|lock)\b|sessions\\\.json/.exec(text)
    return m?.[0]
  }
  if (/(^|\/)sessions\.json$/.test(text)) return 'sessions.json'
  // A piece of a path: `${id}.jsonl`, `.jsonl.reset.`, `${file}.lock` (prose has a space or an end of sentence).
  const m = /^\.(jsonl|lock)(\.|$)|\S\.(jsonl|lock)$/.exec(text)
  return m ? m[0] : undefined
}

/** Every crossing of the boundary in one file, as `<rule>: <what>` lines. */
function violations(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8')
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const out: string[] = []
  const fsNames = new Set<string>()
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text
      if (FS_MODULES.has(spec)) {
        const clause = node.importClause
        if (clause?.name) fsNames.add(clause.name.text)
        const b = clause?.namedBindings
        if (b && ts.isNamespaceImport(b)) fsNames.add(b.name.text)
        if (b && ts.isNamedImports(b)) for (const e of b.elements) fsNames.add(e.name.text)
      }
      const target = path.relative(SRC, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '')
      if (IO_MODULES.includes(target) || target.startsWith('store/diagnostics/file/') || target.startsWith('store/diagnostics/sqlite/')) out.push(`imports session I/O module: ${target}`)
      const b = node.importClause?.namedBindings
      if (target.startsWith('store/') && b && ts.isNamedImports(b)) for (const e of b.elements) if (IO_FUNCTIONS.has((e.propertyName ?? e.name).text)) out.push(`imports session I/O function: ${(e.propertyName ?? e.name).text}`)
      return
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const hit = namesSessionFile(node.text, false)
      if (hit) out.push(`builds a session file name: ${hit}`)
    }
    if (ts.isRegularExpressionLiteral(node)) {
      const hit = namesSessionFile(node.text, true)
      if (hit) out.push(`matches session file names: ${hit}`)
    }
    if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && /^(sessionsDir|realSessionsDir)$/.test(node.text)) out.push(`knows the layout: ${node.text}`)
    // An fs call handed a transcript or a session file: fs.open(ref.locator), fsp.readFile(entry.sessionFile), ...
    if (ts.isCallExpression(node)) {
      const callee = node.expression
      const onFs = ts.isPropertyAccessExpression(callee) ? ts.isIdentifier(callee.expression) && fsNames.has(callee.expression.text) : ts.isIdentifier(callee) && fsNames.has(callee.text)
      if (onFs) {
        const args = node.arguments.map((a) => a.getText(sf)).join(', ')
        const m = /\b(locator|sessionFile|transcript\w*|storePath)\b/i.exec(args)
        if (m) out.push(`session-file I/O: ${callee.getText(sf)}(${m[0]})`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return [...new Set(out)]
}

describe('the store boundary: src/ outside src/store/', () => {
  it('builds no session file path and does no lock, transcript or index I/O (the allow-list stays tiny)', () => {
    const found: string[] = []
    for (const file of sourceFiles(SRC)) {
      const rel = path.relative(SRC, file)
      if (rel.startsWith(`store${path.sep}`)) continue
      for (const v of violations(file)) if (!ALLOWED[`${rel}: ${v}`]) found.push(`${rel}: ${v}`)
    }
    expect(found).toEqual([])
    expect(Object.keys(ALLOWED).length).toBeLessThanOrEqual(3)
  })

  it('the rules catch what they are for: a path built, a lock file, an fs read of a transcript, a lock import', () => {
    const dir = fs.mkdtempSync(path.join(SRC, '..', 'test', '.boundary-'))
    try {
      const probe = path.join(dir, 'probe.ts')
      fs.writeFileSync(
        probe,
        [
          "import fs from 'node:fs'",
          "import path from 'node:path'",
          "import {withLock} from '../../src/store/lock.js'",
          "import {tailTranscript} from '../../src/store/file/transcript.js'",
          'export const a = (dir: string, id: string) => path.join(dir, `${id}.jsonl`)',
          "export const b = (dir: string) => path.join(dir, 'sessions.json')",
          'export const c = (file: string) => `${file}.lock`',
          'export const d = (ref: {locator: string}) => fs.readFileSync(ref.locator)',
          'export const e = (name: string) => /\\.jsonl\\.reset\\./.test(name)',
          'export const f = (sessionsDir: string) => sessionsDir',
          "export const prose = 'Name its sessions.json. A store is an agent\\'s sessions.json, with one .jsonl file per session.'",
          'void withLock, tailTranscript',
        ].join('\n'),
      )
      const seen = violations(probe)
      expect(seen).toEqual(
        expect.arrayContaining([
          'builds a session file name: .jsonl',
          'builds a session file name: sessions.json',
          'builds a session file name: .lock',
          'session-file I/O: fs.readFileSync(locator)',
          'matches session file names: \\.jsonl',
          'knows the layout: sessionsDir',
          'imports session I/O function: tailTranscript',
          'imports session I/O module: store/lock',
        ]),
      )
      expect(seen.filter((v) => v.includes('sessions.json'))).toHaveLength(1)
    } finally {
      fs.rmSync(dir, {recursive: true, force: true})
    }
  })
})
