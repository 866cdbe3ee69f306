// Child process for concurrency tests: N read-modify-write updates of one sessions.json through clawkit's store.
import {FileSessionStore} from '../../dist/store/index.js'

const [storePath, workerId, iterations] = process.argv.slice(2)
const store = new FileSessionStore({agentId: 'main', path: storePath})
for (let i = 0; i < Number(iterations); i++) {
  await store.update((data) => {
    const counter = data['agent:main:main'] ?? {sessionId: 'counter', updatedAt: 0, hits: 0}
    counter.hits = (counter.hits ?? 0) + 1
    counter.updatedAt = Date.now()
    data['agent:main:main'] = counter
    data[`agent:main:worker-${workerId}-${i}`] = {sessionId: `w${workerId}-${i}`, updatedAt: Date.now()}
  }, {lockTimeoutMs: 60_000})
}
