// doctor on modes OpenClaw itself leaves: 0644 transcripts and umask-made dirs are not a failure when nobody else can
// reach them, and they stay a warning when the whole path is open.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {copyFixture, runCli, baseEnv, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {doctor, localizeSessionFiles, MAIN_ID, sessionsDir, transcriptOf, WORK_ID} from './helpers.js'

const mode = (p: string) => fs.statSync(p).mode & 0o777

/** The modes an untouched OpenClaw install has under a private state dir: dirs 0755 (umask), pi transcripts 0644. */
function untouchedInstall(stateMode: number): string {
  const state = copyFixture(TWO_AGENTS)
  localizeSessionFiles(state)
  for (const agent of ['main', 'work']) {
    fs.chmodSync(path.join(state, 'agents', agent), 0o755)
    fs.chmodSync(sessionsDir(state, agent), 0o755)
  }
  fs.chmodSync(path.join(state, 'agents'), 0o755)
  fs.chmodSync(transcriptOf(state, 'main', MAIN_ID), 0o644)
  fs.chmodSync(transcriptOf(state, 'work', WORK_ID), 0o644)
  fs.chmodSync(state, stateMode)
  return state
}

describe('doctor: modes of an untouched OpenClaw install', () => {
  it('0644 transcripts and 0755 dirs under a 0700 state dir are info (exit 0), say why, and --fix still tightens them', async () => {
    const state = untouchedInstall(0o700)
    const {r, doc} = await doctor(state)
    expect(r.code, JSON.stringify(doc.findings)).toBe(0)
    const perms = doc.findings.filter((f) => f.id.endsWith('-permissions'))
    expect(perms.map((f) => [f.id, f.severity]).sort()).toEqual([
      ['agent-dir-permissions', 'info'],
      ['agent-dir-permissions', 'info'],
      ['sessions-dir-permissions', 'info'],
      ['sessions-dir-permissions', 'info'],
      ['transcript-permissions', 'info'],
      ['transcript-permissions', 'info'],
    ])
    const t = perms.find((f) => f.id === 'transcript-permissions' && f.agentId === 'main')
    expect(t!.message).toBe(`1 transcript(s) have mode 644 (e.g. ${MAIN_ID}.jsonl), as OpenClaw's pi writer creates every transcript. Other users cannot reach them today: ${state} is 700, so this is info, not a warning; --fix tightens it anyway in case that directory is opened later.`)
    expect(doc.counts).toMatchObject({error: 0, warn: 0})

    const human = await runCli(['doctor', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(human.code).toBe(0)
    expect(human.stdout).toContain('ℹ info')

    const fixed = await doctor(state, ['--fix', '--yes'])
    expect(fixed.r.code).toBe(0)
    expect([mode(transcriptOf(state, 'main', MAIN_ID)), mode(transcriptOf(state, 'work', WORK_ID)), mode(sessionsDir(state))]).toEqual([0o600, 0o600, 0o700])
  })

  it('the same modes with the state dir open too (0755 all the way down) stay warnings: exit 3', async () => {
    const state = untouchedInstall(0o755)
    const {r, doc} = await doctor(state)
    expect(r.code).toBe(3)
    const t = doc.findings.find((f) => f.id === 'transcript-permissions' && f.agentId === 'main')
    expect(t!.severity).toBe('warn')
    expect(t!.message).toContain('readable by other users')
    expect(doc.findings.find((f) => f.id === 'state-dir-permissions')!.severity).toBe('warn')
  })
})
