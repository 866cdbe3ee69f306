// Preload (node --import) that records every module URL the process resolves into $CLAWKIT_TRACE_IMPORTS,
// so tests can prove a read command never loads heavy modules.
import {register} from 'node:module'

if (process.env.CLAWKIT_TRACE_IMPORTS) {
  register('./trace-imports-hooks.mjs', import.meta.url, {data: {file: process.env.CLAWKIT_TRACE_IMPORTS}})
}
