// A writer that is NOT clawkit: it takes sessions.json.lock exactly as OpenClaw 2026.4.x does (O_EXCL file,
// pretty {pid, createdAt, starttime} payload, min(1000, 50*attempt) backoff, release by rm) and rewrites the store
// with temp + rename. Used to prove clawkit and OpenClaw interleave without lost updates.
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'

const [storePath, workerId, iterations] = process.argv.slice(2)
const lockPath = `${fs.realpathSync(storePath.slice(0, storePath.lastIndexOf('/')))}/sessions.json.lock`
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const starttime = Number(fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ')[19])

async function lock() {
  for (let attempt = 1; ; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx')
      fs.writeSync(fd, JSON.stringify({pid: process.pid, createdAt: new Date().toISOString(), starttime}, null, 2))
      return fd
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
      await sleep(Math.min(1000, 50 * attempt))
    }
  }
}

for (let i = 0; i < Number(iterations); i++) {
  const fd = await lock()
  try {
    let data = {}
    try {
      data = JSON.parse(fs.readFileSync(storePath, 'utf8'))
    } catch {}
    const counter = data['agent:main:main'] ?? {sessionId: 'counter', updatedAt: 0, hits: 0}
    counter.hits = (counter.hits ?? 0) + 1
    data['agent:main:main'] = counter
    data[`agent:main:foreign-${workerId}-${i}`] = {sessionId: `f${workerId}-${i}`, updatedAt: Date.now()}
    const tmp = `${storePath}.${randomUUID()}.tmp`
    fs.writeFileSync(tmp, JSON.stringify(data, null, 2), {mode: 0o600})
    fs.renameSync(tmp, storePath)
  } finally {
    fs.closeSync(fd)
    fs.rmSync(lockPath, {force: true})
  }
}
