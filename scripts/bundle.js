#!/usr/bin/env node
// Bundles the CLI (our code and @oclif/core) into one CommonJS file, dist/cli.cjs, and each heavy library a command
// imports lazily (the Anthropic SDK slice, ora, cli-table3) into a file of its own under dist/vendor/.
// Why one file: Node 20 has no compile cache, and resolving and reading ~200 small CommonJS files cost about 45 ms of
// every start and ~230 ms of importing @anthropic-ai/sdk (BENCHMARKS.md). Why CommonJS: a CommonJS file can be
// compiled through vm.Script with V8's code cache, which bin/run.js does on Node 20 (~40 ms per start); an ES module
// cannot on Node 20. Why vendor files: read commands never load them, and the startup test proves it.
import {build} from 'esbuild'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// Leftovers of earlier layouts (the ES module bundle and its chunks) must not be packed or loaded.
for (const old of ['chunks', 'vendor', 'cli.cjs', 'cli.cjs.LEGAL.txt', 'cli.js.LEGAL.txt']) {
  fs.rmSync(path.join(root, 'dist', old), {recursive: true, force: true})
}

/** Lazily imported modules: specifier (as written in src/) → vendor file, relative to dist/cli.cjs. */
const VENDOR = {
  'anthropic-sdk': {from: './src/agent/sdk.ts', specifier: './sdk.js', importer: 'src/agent/turn.ts', names: ['MessagesClient']},
  ora: {from: 'ora', specifier: 'ora', importer: 'src/render/spinner.ts', names: ['default']},
  'cli-table3': {from: 'cli-table3', specifier: 'cli-table3', importer: 'src/render/table.ts', names: ['default']},
}
const vendorFile = (name) => `vendor/${name}.cjs`

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'linked',
  // esbuild renames clashing top-level names (the SDK's APIConnectionError becomes APIConnectionError2), and code
  // that reads constructor.name (ours in agent/turn.ts, libraries' own) must see the original. No measurable cost.
  keepNames: true,
  logLevel: 'warning',
}

/**
 * Every import() in the bundle goes through `__ckImport`. Why: on Node 20 bin/run.js compiles the bundle as a vm.Script
 * with V8's code cache (src/boot/load-bundle.ts), and a vm.Script's own import() either needs an experimental option
 * that warns on stderr or, once the script comes from the cache, fails ("A dynamic import callback was not specified").
 * load-bundle passes an importer from an ES module as the wrapper's sixth argument; under a plain require() (Node 22+)
 * the native import() of a CommonJS module is used.
 */
// The directive comes first: a banner statement before esbuild's own "use strict" would turn it into a plain string and
// run the whole bundle in sloppy mode (the ES module bundle before it was strict throughout, as ES modules are).
const IMPORTER_BANNER = '"use strict";\nvar __ckImport = typeof __ckImporter === \'function\' ? __ckImporter : (specifier) => import(specifier);'
const DYNAMIC_IMPORT = /\bawait import\(/g

function routeDynamicImports(text) {
  const routed = text.replace(DYNAMIC_IMPORT, 'await __ckImport(')
  // Every other import( must be the banner's fallback or text inside a string ("import()" in oclif's error message).
  // A new shape (after a dependency update) fails the build rather than the first user who reaches it.
  const rest = [...routed.matchAll(/\bimport\(/g)].map((m) => routed.slice(m.index - 12, m.index + 20))
  const known = rest.filter((s) => s.includes('=> import(specifier)') || s.includes('"import()"'))
  if (rest.length !== known.length) throw new Error(`dist/cli.cjs: import() outside __ckImport: ${rest.filter((s) => !known.includes(s)).join(' | ')}`)
  return routed
}

/**
 * Turns each lazy import into a require() of its vendor file, so that the main bundle holds none of it. The import
 * resolves to a stub module that re-exports the names the importer uses; a plain external would stay an import() of a
 * .cjs file, whose ES-module view has the whole exports object as its default.
 */
const vendorExternals = {
  name: 'vendor-externals',
  setup(b) {
    for (const [name, v] of Object.entries(VENDOR)) {
      const filter = new RegExp(`^${v.specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`)
      b.onResolve({filter}, (args) => (path.relative(root, args.importer).split(path.sep).join('/') === v.importer ? {path: name, namespace: 'vendor-stub'} : undefined))
    }
    b.onLoad({filter: /.*/, namespace: 'vendor-stub'}, (args) => {
      const lines = [`const m = require('./${vendorFile(args.path)}')`]
      for (const n of VENDOR[args.path].names) lines.push(n === 'default' ? 'export default m.default' : `export const ${n} = m.${n}`)
      return {contents: lines.join('\n'), loader: 'js'}
    })
    b.onResolve({filter: /^\.\/vendor\//, namespace: 'vendor-stub'}, (args) => ({path: args.path, external: true}))
  },
}

const main = await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.cjs',
  // oclif reaches for these only in development mode (bin/dev.js), where the bundle is not used.
  external: ['typescript', 'tsx', 'tsx/*', 'ts-node'],
  plugins: [vendorExternals],
  banner: {js: IMPORTER_BANNER},
  write: false,
})
for (const out of main.outputFiles) {
  fs.mkdirSync(path.dirname(out.path), {recursive: true})
  fs.writeFileSync(out.path, out.path.endsWith('.cjs') ? routeDynamicImports(out.text) : out.contents)
}

for (const [name, v] of Object.entries(VENDOR)) {
  // Through an ES re-export, so that each file exports the same names whatever the module format of its package.
  const contents = `export {${v.names.join(', ')}} from '${v.from}'`
  // Strict, as these ran inside the ES module bundle before (and as the SDK's and ora's own ES modules are).
  await build({...common, banner: {js: '"use strict";'}, stdin: {contents, resolveDir: root, sourcefile: `vendor-${name}.js`}, outfile: path.join('dist', vendorFile(name))})
}

