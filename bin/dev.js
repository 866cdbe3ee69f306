#!/usr/bin/env node
// Development entry: runs the TypeScript sources through tsx. oclif maps a compiled path back to its source by
// extension (dist/cli.js -> src/cli.ts), so the commands target is pointed at tsc's dist/cli.js here instead of the
// bundle dist/cli.cjs (which would map to a src/cli.cts that does not exist). The committed oclif.manifest.json still
// supplies help and flag metadata.
import fs from 'node:fs'
import {fileURLToPath} from 'node:url'

import {execute} from '@oclif/core'

const root = fileURLToPath(new URL('..', import.meta.url))
const pjson = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
pjson.oclif.commands = {...pjson.oclif.commands, target: './dist/cli.js'}

await execute({development: true, loadOptions: {root, pjson, isRoot: true}})
