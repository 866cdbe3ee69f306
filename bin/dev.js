#!/usr/bin/env node
// Development entry: oclif maps dist/commands back to src/commands and loads them through tsx.
// Note: with oclif.manifest.json present oclif still runs dist/; delete it to exercise src/.
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
