// Ids and paths from users and from files never lead clawkit outside the state dir unless the user named the path
// (--store). Each case plants a canary outside the state dir: its text must never show up and its bytes never change.
import {spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import type {SessionsResetResult} from '../../src/commands/sessions/reset.js'
import {baseEnv, BIN, cliWith, copyFixture, type DocOf, json, jsonError, ROOT, runCli, type RunResult, tempDir, TWO_AGENTS} from '../support/cli.js'
import {diffSnapshots, isEmptyDiff, snapshot} from '../support/state-files.js'
import {isClawkitDataPath} from './support/hostile.js'

const CANARY = 'CANARY-OUTSIDE-THE-STATE-DIR'

interface World {
  root: string
  stateDir: string
  sessionsDir: string
  outside: string
  canaryTranscript: string
  env: Record<string, string>
  run<const A extends readonly string[]>(args: A): Promise<RunResult<DocOf<A>>>
}

/** root/state (fixture copy), root/outside (canary transcript, canary store), root/home. */
function world(): World {
  const root = tempDir('clawkit-paths-')
  const stateDir = copyFixture(TWO_AGENTS, path.join(root, 'state'))
  const outside = path.join(root, 'outside')
  fs.mkdirSync(path.join(outside, 'sessions'), {recursive: true})
  const canaryTranscript = path.join(outside, 'canary.jsonl')
  fs.writeFileSync(
    canaryTranscript,
    `${JSON.stringify({type: 'session', version: 3, id: 'canary', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/'})}\n` +
      `${JSON.stringify({type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: '2026-01-01T00:00:00.000Z', message: {role: 'user', content: CANARY, timestamp: 1}})}\n`,
  )
  fs.writeFileSync(path.join(outside, 'sessions', 'sessions.json'), JSON.stringify({[`agent:main:${CANARY.toLowerCase()}`]: {sessionId: 'canary', updatedAt: 1}}, null, 2))
  const home = path.join(root, 'home')
  fs.mkdirSync(home)
  // clawkit's own code cache (the run's shared one, test/support/cli.ts) lives outside the snapshot: not a write this guards.
  const env = baseEnv(home)
  return {
    root,
    stateDir,
    sessionsDir: path.join(stateDir, 'agents', 'main', 'sessions'),
    outside,
    canaryTranscript,
    env,
    run: cliWith(['--state-dir', stateDir], {env, cwd: path.join(root, 'home')}),
  }
}

function setMainEntry(w: World, patch: Record<string, unknown>): void {
  const file = path.join(w.sessionsDir, 'sessions.json')
  const data = JSON.parse(fs.readFileSync(file, 'utf8'))
  data['agent:main:main'] = {...data['agent:main:main'], ...patch}
  for (const [k, v] of Object.entries(patch)) if (v === undefined) delete data['agent:main:main'][k]
  fs.writeFileSync(file, JSON.stringify(data, null, 2))
}

/** Neither the canary's text in any output nor a change anywhere outside the state dir. */
function expectConfined(w: World, r: RunResult, before: ReturnType<typeof snapshot>): void {
  expect(r.stdout + r.stderr).not.toContain(CANARY)
  expect(r.stderr).not.toMatch(/^\s+at /m)
  expect([0, 1, 2]).toContain(r.code)
  const diff = diffSnapshots(before, snapshot(w.root))
  const outside = [...diff.added, ...diff.changed, ...diff.removed].filter((p) => !p.startsWith(`state${path.sep}`) && !isClawkitDataPath(p))
  expect(outside).toEqual([])
  // clawkit's data dir (a reset's journal keeps the files it changed) holds nothing of a file outside the state dir.
  for (const p of [...diff.added, ...diff.changed].filter(isClawkitDataPath)) {
    const file = path.join(w.root, p)
    if (fs.statSync(file).isFile()) expect(fs.readFileSync(file, 'latin1'), p).not.toContain(CANARY)
  }
}

async function confined<const A extends readonly string[]>(w: World, args: A): Promise<RunResult<DocOf<A>>> {
  const before = snapshot(w.root)
  const r = await w.run(args)
  expectConfined(w, r, before)
  return r
}

describe('ids and paths stay inside the state dir', () => {
  it('sessionFile in sessions.json: absolute path outside, ../ escape, NUL byte, very long name: never followed by history or reset', async () => {
    const hostile = ['OUTSIDE', 'DANGLING', '../../../outside/canary.jsonl', `${'../'.repeat(30)}etc/passwd`, 'a\u0000b.jsonl', `${'x'.repeat(5000)}.jsonl`, '/etc/passwd']
    for (const sessionFile of hostile) {
      const w = world()
      if (sessionFile === 'DANGLING') fs.symlinkSync(path.join(w.outside, 'created-through-link.jsonl'), path.join(w.sessionsDir, 'dangling.jsonl'))
      setMainEntry(w, {sessionFile: sessionFile === 'OUTSIDE' ? w.canaryTranscript : sessionFile === 'DANGLING' ? path.join(w.sessionsDir, 'dangling.jsonl') : sessionFile})
      const hist = await confined(w, ['sessions', 'history', 'main', '--json'])
      if (sessionFile === 'DANGLING') {
        // A dangling link inside the sessions dir whose target is outside: refused, since an append would create it.
        expect(jsonError(hist).code).toBe('E_UNSAFE_TRANSCRIPT')
        expect((await confined(w, ['sessions', 'reset', 'main'])).stderr).toMatch(/^Error: Transcript .* is a symlink to /)
        continue
      }
      expect(hist.code, `${sessionFile}: ${hist.stderr}`).toBe(0)
      // The entry's own transcript (derived from its sessionId inside the sessions dir) is read instead.
      expect(json(hist).sessionFile.startsWith(w.sessionsDir + path.sep)).toBe(true)
      const reset = await confined(w, ['sessions', 'reset', 'main', '--json'])
      expect(reset.code, reset.stderr).toBe(0)
      expect(json(reset).archivedTranscript!.startsWith(w.sessionsDir + path.sep)).toBe(true)
    }
  })

  it('sessionId in sessions.json with ../, an absolute path or a NUL byte: clear error, nothing read or written', async () => {
    for (const sessionId of ['../../../outside/canary', '/outside/canary', 'a\u0000b', '..', `${'a'.repeat(300)}`]) {
      const w = world()
      setMainEntry(w, {sessionId, sessionFile: undefined})
      const before = snapshot(w.root)
      for (const args of [['sessions', 'history', 'main'], ['sessions', 'reset', 'main']]) {
        const r = await w.run(args)
        expectConfined(w, r, before)
        expect(r.code, r.stderr).toBe(2)
        expect(r.stderr).toMatch(/^Error: Invalid session ID: .* \(in the index entry agent:main:main\)/)
      }
      expect(isEmptyDiff(diffSnapshots(before, snapshot(w.root)))).toBe(true)
    }
  })

  it('a transcript that is a symlink pointing outside the state dir is not followed (derived name and sessionFile alike)', async () => {
    const w = world()
    const id = JSON.parse(fs.readFileSync(path.join(w.sessionsDir, 'sessions.json'), 'utf8'))['agent:main:main'].sessionId
    const own = path.join(w.sessionsDir, `${id}.jsonl`)
    fs.rmSync(own)
    fs.symlinkSync(w.canaryTranscript, own)
    for (const sessionFile of [own, undefined]) {
      setMainEntry(w, {sessionFile})
      const hist = await confined(w, ['sessions', 'history', 'main', '--json'])
      expect(hist.code).toBe(1)
      expect(jsonError(hist).message).toMatch(/symlink.*outside the sessions directory/)
    }
    const reset = await confined(w, ['sessions', 'reset', 'main', '--json'])
    expect(reset.code).toBe(1)
    expect(fs.lstatSync(own).isSymbolicLink()).toBe(true)
  })

  it('session keys and ids from the command line: ../, absolute paths, very long names, agent part with ../', async () => {
    const w = world()
    const cases: [string[], number][] = [
      [['sessions', 'history', '../../outside/canary'], 2],
      [['sessions', 'history', '/etc/passwd'], 2],
      [['sessions', 'history', 'agent:../../outside:main'], 1],
      [['sessions', 'reset', 'agent:../../outside:main'], 1],
      [['sessions', 'reset', '../../../etc'], 2],
      [['sessions', 'history', 'x'.repeat(5000)], 2],
      [['sessions', 'history', `agent:main:${'k'.repeat(400)}`], 1],
    ]
    for (const [args, code] of cases) {
      const r = await confined(w, args)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code)
      expect(r.stderr).toMatch(/^Error: /)
    }
  })

  it('agent ids: --agent with ../ or / is normalized and refused; a symlinked agents/<id> dir pointing outside is not listed', async () => {
    const w = world()
    fs.symlinkSync(w.outside, path.join(w.stateDir, 'agents', 'evil'))
    for (const agent of ['../../outside', '/outside', 'a/b', 'evil']) {
      const r = await confined(w, ['sessions', 'list', '--agent', agent, '--json'])
      expect(r.code, r.stdout).toBe(2)
      expect(jsonError(r).code).toBe('E_UNKNOWN_AGENT')
    }
    // OpenClaw's normalization turns ".." into the default agent: still inside the state dir.
    const dots = await confined(w, ['sessions', 'list', '--agent', '..', '--json'])
    expect(json(dots).path).toBe(path.join(w.sessionsDir, 'sessions.json'))
    const all = await confined(w, ['sessions', 'list', '--all-agents', '--json'])
    expect(all.code).toBe(0)
    expect(json(all).stores!.map((s) => s.agentId)).toEqual(['main', 'work'])
  })

  it('--store is the one way to read outside the state dir, because the user named the path; bad --store paths give clear errors', async () => {
    const w = world()
    const named = await w.run(['sessions', 'list', '--store', path.join(w.outside, 'sessions', 'sessions.json'), '--json'])
    expect(named.code).toBe(0)
    expect(json(named).sessions[0].key).toContain(CANARY.toLowerCase())
    for (const store of [w.outside, '/dev/null', path.join(w.outside, 'missing', 'sessions.json'), `${w.outside}/${'n'.repeat(300)}/sessions.json`]) {
      const before = snapshot(w.root)
      const r = await w.run(['sessions', 'list', '--store', store])
      expectConfined(w, r, before)
      expect(isEmptyDiff(diffSnapshots(before, snapshot(w.root)))).toBe(true)
      if (r.code !== 0) expect(r.stderr.split('\n')[0]).toMatch(/^Error: /)
    }
  })
})

describe('special files as paths: only regular files are opened', () => {
  it('--store naming /dev/zero, /dev/null or a FIFO, and sessions.json as a symlink to /dev/zero: refused at once with the path and its kind', async () => {
    const w = world()
    const fifo = path.join(w.outside, 'pipe.json')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    for (const [store, kind] of [['/dev/zero', 'a character device'], ['/dev/null', 'a character device'], [fifo, 'a FIFO (named pipe)']]) {
      const before = snapshot(w.root)
      const r = await runCli(['sessions', 'list', '--store', store, '--state-dir', w.stateDir], {env: w.env, cwd: w.root, timeoutMs: 15_000})
      expect(r.signal, store).toBeNull()
      expect(r.code, store).toBe(1)
      expect(r.stderr.split('\n')[0]).toBe(`Error: Session store ${store} is ${kind}, not a regular file; clawkit only reads regular files. Point --store or session.store at a sessions.json file, or move this one out of the way (clawkit then sees no sessions).`)
      expect(isEmptyDiff(diffSnapshots(before, snapshot(w.root)))).toBe(true)
    }
    const index = path.join(w.sessionsDir, 'sessions.json')
    fs.rmSync(index)
    fs.symlinkSync('/dev/zero', index)
    for (const args of [['sessions', 'list'], ['sessions', 'reset', 'main'], ['doctor']]) {
      const r = await w.run(args)
      expect(r.signal, args.join(' ')).toBeNull()
      expect(r.stdout + r.stderr, args.join(' ')).toMatch(/character device|not a regular file/)
    }
  })
})

function shellWithUmask(umask: string, cmd: string, w: World): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const c = spawn('/bin/sh', ['-c', `umask ${umask}; ${cmd}`], {env: w.env, cwd: w.root})
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => (stdout += d))
    c.stderr.on('data', (d) => (stderr += d))
    c.on('error', reject)
    c.on('close', (code, signal) => resolve({code, signal, stdout, stderr}))
  })
}

describe('permissions: every file clawkit creates is 0600 and every dir 0700, whatever the umask', () => {
  for (const umask of ['000', '077', '022']) {
    it(`umask ${umask}: CLI reset and the store library (new nested dirs, index, transcript, locks)`, async () => {
      const w = world()
      const index = path.join(w.sessionsDir, 'sessions.json')
      fs.chmodSync(index, 0o644)
      const before = snapshot(w.stateDir)
      const sh = (cmd: string) => shellWithUmask(umask, cmd, w)
      const r = await sh(`"${process.execPath}" "${BIN}" sessions reset main --json --state-dir "${w.stateDir}"`)
      expect(r.code, r.stderr).toBe(0)
      const after = snapshot(w.stateDir)
      const diff = diffSnapshots(before, after)
      // The rewritten index is 0600 even though the old one was 0644; nothing else was created but the archive.
      expect(after.get(path.relative(w.stateDir, index))?.mode).toBe(0o600)
      const doc = json<SessionsResetResult>(r)
      const newTranscript = path.relative(w.stateDir, doc.sessionFile)
      expect(diff.added.filter((p) => !/\.jsonl\.reset\./.test(p)).sort()).toEqual([newTranscript])
      expect(after.get(newTranscript)?.mode).toBe(0o600)
      // The library path that creates directories: a new agent's index and a new transcript in missing dirs.
      const lib = path.join(ROOT, 'dist', 'store', 'index.js')
      const fresh = path.join(w.stateDir, 'agents', 'newagent', 'sessions')
      const script = `import {FileSessionStore, appendEntries, makeHeader, acquireLock} from ${JSON.stringify(lib)};
        await new FileSessionStore({agentId: 'newagent', path: ${JSON.stringify(path.join(fresh, 'sessions.json'))}}).update((d) => { d['agent:newagent:main'] = {sessionId: 's1', updatedAt: 1} });
        await appendEntries(${JSON.stringify(path.join(fresh, 'deep', 'x', 's1.jsonl'))}, [{type: 'message', message: {role: 'user', content: 'hi'}}], {header: makeHeader('s1', '/')});
        const l = await acquireLock(${JSON.stringify(path.join(fresh, 'lockdir', 'f.json'))});
        const fs = await import('node:fs'); process.stdout.write(String(fs.statSync(l.lockPath).mode & 0o777)); await l.release();`
      const lr = await sh(`"${process.execPath}" --input-type=module -e '${script.replaceAll("'", "'\\''")}'`)
      expect(lr.code, lr.stderr).toBe(0)
      expect(Number(lr.stdout)).toBe(0o600)
      const created = snapshot(path.join(w.stateDir, 'agents', 'newagent'))
      for (const [rel, info] of created) expect(`${rel || '.'} ${info.mode.toString(8)}`).toBe(`${rel || '.'} ${info.kind === 'dir' ? '700' : '600'}`)
      expect([...created.keys()]).toEqual(expect.arrayContaining(['sessions/sessions.json', 'sessions/deep/x/s1.jsonl', 'sessions/lockdir']))
    })
  }
})
