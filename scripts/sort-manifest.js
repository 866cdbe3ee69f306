#!/usr/bin/env node
// `oclif manifest` lists commands in directory-listing order, which differs between filesystems and checkouts.
// Sorting the command ids makes the generated manifest byte-identical everywhere, so the committed copy can be
// checked against the build.
import fs from 'node:fs'

const file = new URL('../oclif.manifest.json', import.meta.url)
const manifest = JSON.parse(fs.readFileSync(file, 'utf8'))
const sorted = {}
for (const id of Object.keys(manifest.commands).sort()) sorted[id] = manifest.commands[id]
manifest.commands = sorted
fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
