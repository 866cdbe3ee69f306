// doctor --fix changes only an OpenClaw state dir, and never through a symbolic link out of it; a repair it skips is
// reported as not fixed, with the reason, and the exit code says the finding remains.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, copyFixture, runCli, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {snapshot, diffSnapshots, isEmptyDiff} from '../../support/state-files.js'
import {doctor, localizeSessionFiles} from './helpers.js'

const mode = (p: string) => fs.statSync(p).mode & 0o7777

describe('doctor --fix outside OpenClaw state', () => {
  it('a mode-1777 dir that is not an OpenClaw state dir (like /tmp) is left exactly as it was, and doctor says why', async () => {
    const dir = path.join(tempDir(), 'shared-tmp')
    fs.mkdirSync(dir)
    fs.writeFileSync(path.join(dir, 'someone-elses-file'), 'x', {mode: 0o644})
    fs.chmodSync(dir, 0o1777)
    const before = snapshot(dir)
    const {r, doc} = await doctor(dir, ['--fix', '--yes'])
    expect(mode(dir)).toBe(0o1777)
    expect(isEmptyDiff(diffSnapshots(before, snapshot(dir)))).toBe(true)
    expect(doc.findings.map((f: any) => f.id)).toEqual(['state-dir-unrecognized'])
    expect(doc.findings[0]).toMatchObject({severity: 'error', fixable: false, fixed: false})
    expect(doc.fixed).toBe(0)
    expect(r.code).toBe(4)
    const human = await runCli(['doctor', '--fix', '--yes', '--state-dir', dir], {env: baseEnv(tempDir())})
    expect(human.stdout).toMatch(/is not an OpenClaw state dir/)
    expect(mode(dir)).toBe(0o1777)
  })

  it('a state dir with only openclaw.json, or only agents/, is still recognised and repaired', async () => {
    for (const marker of ['openclaw.json', 'agents']) {
      const dir = path.join(tempDir(), 'state')
      fs.mkdirSync(dir, {mode: 0o755})
      fs.chmodSync(dir, 0o755)
      if (marker === 'agents') fs.mkdirSync(path.join(dir, 'agents'), {mode: 0o700})
      else fs.writeFileSync(path.join(dir, marker), '{}', {mode: 0o600})
      const {doc} = await doctor(dir, ['--fix', '--yes'])
      expect(doc.findings.find((f: any) => f.id === 'state-dir-permissions'), marker).toMatchObject({fixed: true})
      expect(mode(dir)).toBe(0o700)
    }
  })
})

describe('doctor --fix and symbolic links inside the state dir', () => {
  it('a state dir that is itself a link (kept on another disk) still has its own mode repaired', async () => {
    const real = copyFixture(TWO_AGENTS)
    fs.chmodSync(real, 0o755)
    const link = path.join(tempDir(), 'openclaw-link')
    fs.symlinkSync(real, link)
    const {doc} = await doctor(link, ['--fix', '--yes'])
    const f = doc.findings.find((x: any) => x.id === 'state-dir-permissions')
    expect(f).toMatchObject({fixed: true})
    expect(mode(real)).toBe(0o700)
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
  })

  it('a symlinked agent dir (agents/work -> outside) is neither chmodded nor rewritten; its findings say why', async () => {
    const state = copyFixture(TWO_AGENTS)
    localizeSessionFiles(state)
    const victim = path.join(tempDir(), 'victim')
    fs.cpSync(path.join(state, 'agents', 'work'), victim, {recursive: true})
    fs.rmSync(path.join(state, 'agents', 'work'), {recursive: true})
    fs.symlinkSync(victim, path.join(state, 'agents', 'work'))
    // A stored sessionFile pointing elsewhere makes an index repair (session-file-relocated) due for the victim store.
    const victimStore = path.join(victim, 'sessions', 'sessions.json')
    const index = JSON.parse(fs.readFileSync(victimStore, 'utf8'))
    for (const e of Object.values<any>(index)) e.sessionFile = path.join('/nonexistent/old-home/sessions', path.basename(e.sessionFile))
    fs.writeFileSync(victimStore, JSON.stringify(index, null, 2))
    for (const p of [victim, path.join(victim, 'sessions'), victimStore]) fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o755 : 0o644)
    fs.chmodSync(path.join(state, 'agents', 'main', 'sessions'), 0o755)
    const before = snapshot(victim)
    const modes = [victim, path.join(victim, 'sessions'), victimStore].map(mode)

    const {r, doc} = await doctor(state, ['--fix', '--yes'])
    expect(isEmptyDiff(diffSnapshots(before, snapshot(victim)))).toBe(true)
    expect([victim, path.join(victim, 'sessions'), victimStore].map(mode)).toEqual(modes)
    const work = doc.findings.filter((f: any) => f.agentId === 'work')
    expect(work.length).toBeGreaterThan(0)
    for (const f of work.filter((x: any) => x.id !== 'sqlite-store')) {
      expect(f, f.id).toMatchObject({fixed: false, fixable: false, details: expect.objectContaining({symlink: path.join(state, 'agents', 'work')})})
      expect(f.message).toMatch(/is a symbolic link/)
    }
    expect(work.map((f: any) => f.id)).toContain('session-file-relocated')
    // Warnings remain, so doctor does not report a healthy store.
    expect(r.code).not.toBe(0)
    // The main agent, a real directory, is still repaired.
    expect(doc.findings.find((f: any) => f.agentId === 'main' && f.id === 'sessions-dir-permissions')).toMatchObject({fixed: true})
    expect(mode(path.join(state, 'agents', 'main', 'sessions'))).toBe(0o700)
  })

  it('a symlinked sessions dir: its permission finding is not reported fixed, stays open, and the exit code agrees', async () => {
    const state = copyFixture(TWO_AGENTS)
    localizeSessionFiles(state)
    // Outside the state dir, under a 0700 temp dir: judged where it really is, so a warning however closed the state dir.
    const outside = path.join(tempDir(), 'sessions-elsewhere')
    const sessions = path.join(state, 'agents', 'work', 'sessions')
    fs.cpSync(sessions, outside, {recursive: true})
    fs.rmSync(sessions, {recursive: true})
    fs.symlinkSync(outside, sessions)
    fs.chmodSync(outside, 0o755)
    // Everything else healthy, so the only warning left is the linked dir.
    const first = await doctor(state, ['--fix', '--yes'])
    expect(mode(outside)).toBe(0o755)
    const f = first.doc.findings.find((x: any) => x.id === 'sessions-dir-permissions' && x.agentId === 'work')
    expect(f).toMatchObject({fixed: false, fixable: false})
    expect(f!.message).toMatch(/symbolic link/)
    expect(first.doc.findings.filter((x: any) => x.fixed && x.agentId === 'work').map((x: any) => x.id)).toEqual([])
    const again = await doctor(state, [])
    expect(again.doc.counts.warn).toBeGreaterThan(0)
    expect(again.r.code).toBe(again.doc.exitCode)
    expect(first.r.code).toBe(first.doc.exitCode)
    expect(again.doc.findings.find((x: any) => x.id === 'sessions-dir-permissions')).toMatchObject({fixable: false})
  })
})
