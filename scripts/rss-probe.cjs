// Preloaded into a measured CLI process (NODE_OPTIONS=--require): records the peak RSS (VmHWM) at exit.
const fs = require('node:fs')

const out = process.env.CLAWKIT_RSS_PROBE_FILE
if (out) {
  process.on('exit', () => {
    try {
      const status = fs.readFileSync('/proc/self/status', 'utf8')
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)
      fs.writeFileSync(out, String(kb * 1024))
    } catch {}
  })
}
