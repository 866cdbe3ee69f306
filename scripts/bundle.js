#!/usr/bin/env node
// Bundles the CLI (our code and @oclif/core) into one CommonJS file, dist/cli.cjs, and each heavy library a command
// imports lazily (the Anthropic SDK slice, ora, cli-table3) into a file of its own under dist/vendor/.
// Why one file: resolving and reading ~200 small CommonJS files cost about 45 ms of every start on Node 20 and ~230 ms of
// importing @anthropic-ai/sdk (BENCHMARKS.md). Why CommonJS: a CommonJS file can be compiled through vm.Script with
// V8's code cache, which dist/boot.cjs does on every Node version (~40 ms per start on Node 20); an ES module cannot.
// Why vendor files: read commands never load them, and the startup test proves it.
import {build} from 'esbuild'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

// tsc has built dist/ before this script runs (npm run build).
import {BUNDLE_WRAPPER} from '../dist/cli/load-bundle.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// Leftovers of earlier layouts (the ES module bundle and its chunks) must not be packed or loaded.
for (const old of ['chunks', 'vendor', 'boot.cjs', 'cli.cjs', 'cli.cjs.LEGAL.txt', 'cli.js.LEGAL.txt']) {
  fs.rmSync(path.join(root, 'dist', old), {recursive: true, force: true})
}

/**
 * Lazily imported modules: marked in one place, src/lazy.ts, by a `// vendor: <name> <export names...>` comment after
 * each import(). Each becomes dist/vendor/<name>.cjs; the import() in src/lazy.ts turns into a require() of it.
 */
const LAZY_FILE = 'src/lazy.ts'
function readVendorMarks() {
  const text = fs.readFileSync(path.join(root, LAZY_FILE), 'utf8')
  const marks = {}
  for (const line of text.split('\n')) {
    if (!line.includes('// vendor:')) continue
    const m = /\bimport\('([^']+)'\).*\/\/ vendor: ([a-z0-9-]+) ([A-Za-z0-9_ ]+)$/.exec(line)
    if (!m) throw new Error(`${LAZY_FILE}: a vendor mark must read "import('<specifier>') // vendor: <name> <export names>": ${line.trim()}`)
    const [, specifier, name, names] = m
    // A relative specifier names a source file (./agent/sdk.js is src/agent/sdk.ts); a bare one is a package.
    const from = specifier.startsWith('.') ? `./${path.posix.join(path.posix.dirname(LAZY_FILE), specifier).replace(/\.js$/, '.ts')}` : specifier
    marks[name] = {from, specifier, importer: LAZY_FILE, names: names.trim().split(/\s+/)}
  }
  if (Object.keys(marks).length === 0) throw new Error(`${LAZY_FILE}: no vendor marks found; every lazily loaded library would be bundled into every start`)
  return marks
}
const VENDOR = readVendorMarks()
/** Optional peers a vendor library may require and clawkit never uses: pg's libpq binding and its Workers socket. */
const VENDOR_EXTERNALS = ['pg-native', 'pg-cloudflare']
const vendorFile = (name) => `vendor/${name}.cjs`

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'linked',
  // esbuild renames clashing top-level names (the SDK's APIConnectionError becomes APIConnectionError2), and code
  // that reads constructor.name (ours in agent/api-errors.ts, libraries' own) must see the original. No measurable cost.
  keepNames: true,
  // Whitespace and syntax minified: a third less to read and to hold as a string at every start (2.1 MB to 1.5), ~4 %
  // of a start on Node 20 and 24 (BENCHMARKS.md, "A minified bundle, and two start-up designs that lost"). Identifiers
  // are kept: stack traces (DEBUG) still name every function, and the helpers the steps below look for (__toESM,
  // import()) keep their names.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  metafile: true,
}

/**
 * Every import() in the bundle goes through `__ckImport`. Why: dist/boot.cjs compiles the bundle as a vm.Script with
 * V8's code cache (src/cli/load-bundle.ts), and a vm.Script's own import() either needs an experimental option that
 * warns on stderr or, once the script comes from the cache, fails ("A dynamic import callback was not specified").
 * load-bundle passes an importer from an ES module as the wrapper's sixth argument; when the bundle is a plain require()
 * (no usable cache dir) the native import() of a CommonJS module is used.
 */
// The directive comes first: a banner statement before esbuild's own "use strict" would turn it into a plain string and
// run the whole bundle in sloppy mode (the ES module bundle before it was strict throughout, as ES modules are).
const IMPORTER_BANNER = '"use strict";\nvar __ckImport = typeof __ckImporter === \'function\' ? __ckImporter : (specifier) => import(specifier);'

/**
 * `import fs from 'node:fs'` in each of our ~30 modules becomes its own `__toESM(require("node:fs"), 1)`: a fresh copy
 * of the module's namespace, one getter per export (fs has ~100). Sharing one copy per built-in saves ~5-9 ms of every
 * start. Only built-ins: they are complete when first required, whereas a package caught mid-way in a require() cycle
 * would hand a partial export list to every later importer.
 */
const BUILTIN_BANNER = 'var __ckBuiltins = Object.create(null);\nvar __ckBuiltin = (id) => __ckBuiltins[id] || (__ckBuiltins[id] = __toESM(require(id), 1));'
const BUILTIN_TO_ESM = /__toESM\(require\("(node:[^"]+)"\),\s?1\)/g
function shareBuiltins(text) {
  const shared = text.replace(BUILTIN_TO_ESM, '__ckBuiltin("$1")')
  // esbuild's helper call changing shape would silently undo the sharing; fail the build instead.
  if (shared === text || /__toESM\(require\("node:/.test(shared)) throw new Error('shareBuiltins: esbuild no longer emits __toESM(require("node:…"), 1); review BUILTIN_TO_ESM in scripts/bundle.js')
  return shared
}
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

/**
 * Source edits to dependencies, each found exactly once or the build fails (so an update cannot silently drop one).
 * - oclif sorts the command list with localeCompare on every start, and the first localeCompare builds ICU's collator:
 *   ~8-10 ms of every command, for ids that are plain lowercase ASCII. A code-unit comparison gives the same order for
 *   them; test/cli/cli.test.ts checks that it does for every command id in the manifest.
 * - ansis: see below; test/cli/load-bundle.test.ts checks that the bundle is ASCII.
 */
const PATCHES = [
  {
    file: 'node_modules/@oclif/core/lib/config/plugin.js',
    from: '.sort((a, b) => a.id.localeCompare(b.id));',
    to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
  },
  // Built-ins oclif requires at its top level and uses only on paths clawkit never or rarely takes (a shell lookup on
  // Windows, flags read from stdin, OCLIF_PERFORMANCE): required when first used instead. node:child_process brings
  // net and dgram with it; with readline and perf_hooks ~4 ms of every start (BENCHMARKS.md, "A minified bundle, and
  // two start-up designs that lost").
  {
    file: 'node_modules/@oclif/core/lib/util/os.js',
    from: 'const node_child_process_1 = require("node:child_process");',
    to: 'const node_child_process_1 = { get execSync() { return require("node:child_process").execSync; } };',
  },
  {
    file: 'node_modules/@oclif/core/lib/parser/parse.js',
    from: 'const node_readline_1 = require("node:readline");',
    to: 'const node_readline_1 = { get createInterface() { return require("node:readline").createInterface; } };',
  },
  {
    file: 'node_modules/@oclif/core/lib/performance.js',
    from: 'const node_perf_hooks_1 = require("node:perf_hooks");',
    to: 'const node_perf_hooks_1 = { get performance() { return require("node:perf_hooks").performance; }, get PerformanceObserver() { return require("node:perf_hooks").PerformanceObserver; } };',
  },
  // oclif's platform check (at every start, for the "wsl" of --version's line) imported all of wsl-utils for its isWsl,
  // which is is-wsl's: the same answer from is-wsl alone, without wsl-utils' node:child_process and PowerShell helpers.
  {
    file: 'node_modules/@oclif/core/lib/util/os.js',
    from: "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
    to: "return (await import('is-wsl')).default ? 'wsl' : (0, node_os_1.platform)();",
  },
  // The one character that kept dist/cli.cjs from being ASCII (a raw U+009B in ansis's strip() regex); written as an
  // escape it means the same. Why ASCII matters: src/cli/load-bundle.ts.
  {
    file: 'node_modules/ansis/index.js',
    from: 'e.replace(/[\u001b\u009b][[()#;?]*',
    to: 'e.replace(/[\\u001b\\u009b][[()#;?]*',
  },
]
const dependencyPatches = {
  name: 'dependency-patches',
  setup(b) {
    // One onLoad per file, applying each of its patches in turn (esbuild takes the first onLoad that returns contents).
    for (const file of new Set(PATCHES.map((p) => p.file))) {
      const patches = PATCHES.filter((p) => p.file === file)
      // By the path's end: esbuild loads the real path, which is elsewhere when node_modules is a symlink.
      const tail = file.split('/').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\\\/]')
      b.onLoad({filter: new RegExp(`[\\\\/]${tail}$`)}, async (args) => {
        let text = await fs.promises.readFile(args.path, 'utf8')
        for (const p of patches) {
          if (text.split(p.from).length !== 2) throw new Error(`${p.file}: the text to patch was not found exactly once; review PATCHES in scripts/bundle.js`)
          text = text.split(p.from).join(p.to)
          p.applied = true
        }
        return {contents: text, loader: 'js'}
      })
    }
    b.onEnd(() => {
      const missed = PATCHES.filter((p) => !p.applied).map((p) => p.file)
      if (missed.length) throw new Error(`not in the bundle any more, so not patched: ${missed.join(', ')}; review PATCHES in scripts/bundle.js`)
    })
  },
}

/**
 * Which packages went into which file of dist/, from esbuild's metafile: dist/bundle-packages.json, which the start-up
 * tests read to prove that the heavy libraries stay in their vendor files (the minified files keep no path comments).
 */
const packages = {}
function recordPackages(result) {
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    if (!file.endsWith('.cjs')) continue
    const names = new Set()
    for (const input of Object.keys(out.inputs)) {
      // The last node_modules segment names the package (a nested dependency's own, not its parent's).
      const m = [...input.matchAll(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].at(-1)
      if (m) names.add(m[1])
    }
    packages[path.relative('dist', file).split(path.sep).join('/')] = [...names].sort()
  }
}

const main = await build({
  ...common,
  entryPoints: ['src/cli/cli.ts'],
  outfile: 'dist/cli.cjs',
  // oclif reaches for these only in development mode (bin/dev.js), where the bundle is not used.
  external: ['typescript', 'tsx', 'tsx/*', 'ts-node'],
  plugins: [vendorExternals, dependencyPatches],
  banner: {js: `${IMPORTER_BANNER}\n${BUILTIN_BANNER}`},
  write: false,
})
recordPackages(main)
for (const out of main.outputFiles) {
  fs.mkdirSync(path.dirname(out.path), {recursive: true})
  // dist/cli.cjs is written wrapped (BUNDLE_WRAPPER, src/cli/load-bundle.ts says why): a script for load-bundle, no
  // longer a module for require().
  fs.writeFileSync(out.path, out.path.endsWith('.cjs') ? `${BUNDLE_WRAPPER[0]}${shareBuiltins(routeDynamicImports(out.text))}${BUNDLE_WRAPPER[1]}` : out.contents)
}

for (const [name, v] of Object.entries(VENDOR)) {
  // Through an ES re-export, so that each file exports the same names whatever the module format of its package.
  const contents = `export {${v.names.join(', ')}} from '${v.from}'`
  // Strict, as these ran inside the ES module bundle before (and as the SDK's and ora's own ES modules are).
  recordPackages(await build({...common, external: VENDOR_EXTERNALS, banner: {js: '"use strict";'}, stdin: {contents, resolveDir: root, sourcefile: `vendor-${name}.js`}, outfile: path.join('dist', vendorFile(name))}))
}


// bin/run.js's own start-up (src/cli/boot.ts: why CommonJS), with env-paths inlined.
const boot = await build({...common, banner: {js: `"use strict";\n${BUILTIN_BANNER}`}, entryPoints: ['src/cli/boot.ts'], outfile: 'dist/boot.cjs', write: false})
fs.writeFileSync(path.join(root, 'dist', 'boot.cjs'), shareBuiltins(boot.outputFiles.find((o) => o.path.endsWith('.cjs')).text))
recordPackages(boot)
fs.writeFileSync(path.join(root, 'dist', 'bundle-packages.json'), `${JSON.stringify(packages, null, 2)}\n`)
