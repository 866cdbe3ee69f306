#!/usr/bin/env node
// Development entry: oclif maps the bundle's entry dist/cli.js back to src/cli.ts and loads it through tsx, so the
// TypeScript sources run; the committed oclif.manifest.json still supplies help and flag metadata.
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
