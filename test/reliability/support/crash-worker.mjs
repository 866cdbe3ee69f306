// Crash-trial victim: drives clawkit's store library (dist/) in an endless write loop until the test SIGKILLs it.
// Prints "READY" once loaded, then one progress line per *completed* write ("C <n>" index, "A <n>" transcript),
// so the test knows the last state that must have reached the disk. Pipes to the parent are synchronous on Linux,
// so a printed line always means the write before it returned.
//   node crash-worker.mjs index <sessions.json> <padBytes>
//   node crash-worker.mjs transcript <file.jsonl> <seed> <hugeEvery>
//   node crash-worker.mjs append-one <file.jsonl>
import {appendEntries, FileSessionStore} from '../../../dist/store/index.js'

const [mode, file, a, b] = process.argv.slice(2)

/** Must match expectedIndexText() in support/crash-writers.ts. */
function applyIndexUpdate(data, i, pad) {
  data['agent:main:main'].crashSeq = i
  data[`agent:main:crash-${i}`] = {sessionId: `crash-${i}`, updatedAt: 1_800_000_000_000 + i, pad}
}

if (mode === 'index') {
  const pad = 'x'.repeat(Number(a))
  const store = new FileSessionStore({agentId: 'main', path: file})
  process.stdout.write('READY\n')
  for (let i = 1; ; i++) {
    await store.update((data) => applyIndexUpdate(data, i, pad), {lockTimeoutMs: 60_000})
    process.stdout.write(`C ${i}\n`)
  }
} else if (mode === 'transcript') {
  // A small LCG: batch sizes and huge entries vary per trial but replay from the seed.
  let s = Number(a) >>> 0
  const rand = () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 4_294_967_296)
  const hugeEvery = Number(b)
  process.stdout.write('READY\n')
  let seq = 0
  for (;;) {
    const n = 1 + Math.floor(rand() * 3)
    const items = []
    for (let k = 0; k < n; k++) {
      seq++
      // Entries over 512 KiB are written by Node in several write(2) calls: the only way a kill can tear a line.
      const huge = hugeEvery > 0 && rand() * hugeEvery < 1
      const text = `seq ${seq} ${'y'.repeat(huge ? 600_000 + Math.floor(rand() * 3_400_000) : Math.floor(rand() * 2000))}`
      items.push({type: 'message', message: {role: 'user', content: [{type: 'text', text}], timestamp: 1_800_000_000_000 + seq}})
    }
    await appendEntries(file, items, {lockTimeoutMs: 60_000})
    process.stdout.write(`A ${seq}\n`)
  }
} else if (mode === 'append-one') {
  // The "next command" after a transcript crash: one append that must reclaim the dead writer's lock.
  const [entry] = (await appendEntries(file, [{type: 'message', message: {role: 'user', content: [{type: 'text', text: 'recovered'}], timestamp: 1_900_000_000_000}}], {lockTimeoutMs: 8000})).entries
  process.stdout.write(`${JSON.stringify({id: entry.id, parentId: entry.parentId})}\n`)
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}
