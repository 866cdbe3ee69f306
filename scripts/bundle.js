#!/usr/bin/env node
// Bundles the CLI (our code, @oclif/core and the lazily imported SDK, ora and cli-table3) into dist/cli.js plus
// split chunks. Why: Node 20 has no compile cache, and resolving and reading ~200 small CommonJS files cost about
// 45 ms of every start and ~230 ms of importing @anthropic-ai/sdk (BENCHMARKS.md). Dynamic imports stay dynamic:
// each becomes its own chunk, so read commands never load the SDK.
import {build} from 'esbuild'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// Chunk names carry content hashes: without this, chunks of earlier builds pile up (and would be packed).
fs.rmSync(path.join(root, 'dist', 'chunks'), {recursive: true, force: true})

await build({
  absWorkingDir: root,
  entryPoints: {cli: 'src/cli.ts'},
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // oclif reaches for these only in development mode (bin/dev.js), where the bundle is not used.
  external: ['typescript', 'tsx', 'tsx/*', 'ts-node'],
  // CommonJS dependencies call require() for built-ins and read __dirname; an ES module has neither.
  banner: {
    js: [
      "import {createRequire as __ckCreateRequire} from 'node:module'",
      "import {fileURLToPath as __ckFileURLToPath} from 'node:url'",
      "import {dirname as __ckDirname} from 'node:path'",
      'const require = __ckCreateRequire(import.meta.url)',
      'const __filename = __ckFileURLToPath(import.meta.url)',
      'const __dirname = __ckDirname(__filename)',
    ].join('\n'),
  },
  legalComments: 'linked',
  // esbuild renames clashing top-level names (the SDK's APIConnectionError becomes APIConnectionError2), and code
  // that reads constructor.name (ours in agent/turn.ts, libraries' own) must see the original. No measurable cost.
  keepNames: true,
  logLevel: 'warning',
})
