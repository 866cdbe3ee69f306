#!/usr/bin/env node
// Development entry: runs the TypeScript sources through tsx. oclif maps a compiled path back to its source by
// extension (dist/cli/all-commands.js -> src/cli/all-commands.ts), so the commands target is pointed at tsc's
// dist/cli/all-commands.js here instead of the bundle dist/cli.cjs (which would map to a src/cli.cts that does not
// exist, and loads a command only once its own execute has read the arguments): that module holds every command
// loaded. The committed oclif.manifest.json still supplies help and flag metadata. CommonJS, as everything in bin/ is
// (bin/package.json, see run.js).
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const {execute} = require('@oclif/core')

const root = path.join(__dirname, '..')
const pjson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
pjson.oclif.commands = {...pjson.oclif.commands, target: './dist/cli/all-commands.js'}

execute({development: true, loadOptions: {root, pjson, isRoot: true}})
