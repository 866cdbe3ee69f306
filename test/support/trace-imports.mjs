// Preload (node --import) that records every module the process loads into $CLAWKIT_TRACE_IMPORTS, so tests can
// prove a read command never loads heavy modules: resolved ES module URLs through loader hooks, and at exit the file
// paths in require.cache (the CommonJS bundle and whatever it require()s, which the hooks do not see on Node 20), and
// the public built-ins it loaded, as `node:<name>` lines.
import fs from 'node:fs'
import {createRequire, register} from 'node:module'

const file = process.env.CLAWKIT_TRACE_IMPORTS
if (file) {
  register('./trace-imports-hooks.mjs', import.meta.url, {data: {file}})
  const cache = createRequire(import.meta.url).cache
  process.on('exit', () => {
    const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ') && !m.includes('internal/')).map((m) => `node:${m.slice(13)}`)
    fs.appendFileSync(file, [...Object.keys(cache), ...builtins].map((p) => `${p}\n`).join(''))
  })
}
