// Loader hooks for trace-imports.mjs: append each resolved URL to the trace file (ESM and CJS-from-ESM alike).
import fs from 'node:fs'

let file
export function initialize(data) {
  file = data.file
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  fs.appendFileSync(file, `${result.url}\n`)
  return result
}
