import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, COMPACTION, copyFixture, json, readIndexFile, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {snapshot} from '../../support/state-files.js'
import {doctor, expectNoLineLost, ids, sessionsDir, transcriptLineHashes} from './helpers.js'

describe('doctor on a moved or copied state dir (the fixtures as they are)', () => {
  it('reports every sessionFile that points to /home/user/.openclaw as session-file-relocated, not as missing or orphan', async () => {
    const state = copyFixture(TWO_AGENTS)
    const {r, doc} = await doctor(state)
    expect(r.code, r.stderr).toBe(3)
    expect(ids(doc)).toEqual(['session-file-relocated', 'session-file-relocated'])
    expect(doc.ok).toBe(false)
    expect(doc.stateDir).toBe(state)
    expect(doc.fixed).toBe(0)
    expect(doc.agents.map((a: any) => [a.agentId, a.sessions, a.transcripts])).toEqual([
      ['main', 1, 1],
      ['work', 1, 1],
    ])
    const f = doc.findings.find((x: any) => x.agentId === 'work')
    expect(f).toMatchObject({severity: 'warn', key: 'agent:work:main', fixable: true, fixed: false, path: path.join(sessionsDir(state, 'work'), '704f285c-af26-493e-ab33-9383ab17a8c0.jsonl')})
    expect(f!.details!.storedSessionFile).toBe('/home/user/.openclaw/agents/work/sessions/704f285c-af26-493e-ab33-9383ab17a8c0.jsonl')
    expect(f!.message).toContain('--fix rewrites sessionFile')
  })

  it('--fix rewrites the paths after a sessions.json.bak.<ms> backup, a second run is clean, no line is lost', async () => {
    const state = copyFixture(COMPACTION)
    const before = transcriptLineHashes(state)
    const original = fs.readFileSync(sessionsJsonPath(state), 'utf8')
    const {r, doc} = await doctor(state, ['--fix'])
    expect(r.code, r.stderr).toBe(0)
    expect(doc.fixed).toBe(2)
    expect(doc.findings.every((f: any) => f.fixed)).toBe(true)
    const backups = fs.readdirSync(sessionsDir(state)).filter((n) => /^sessions\.json\.bak\.\d+$/.test(n))
    expect(backups).toHaveLength(1)
    expect(fs.readFileSync(path.join(sessionsDir(state), backups[0]), 'utf8')).toBe(original)
    expect(doc.findings[0].backup).toBe(path.join(sessionsDir(state), backups[0]))
    const data = readIndexFile(sessionsJsonPath(state))
    for (const e of Object.values<any>(data)) expect(path.dirname(e.sessionFile)).toBe(sessionsDir(state))
    // unknown fields survive the rewrite
    expect(data['agent:main:main'].compactionCheckpoints).toHaveLength(1)
    expect(data['agent:main:main'].skillsSnapshot).toBeDefined()
    const again = await doctor(state)
    expect(again.r.code).toBe(0)
    expect(again.doc.findings).toEqual([])
    expect(again.doc.ok).toBe(true)
    expect(expectNoLineLost(before, state)).toEqual([])
  })

  it('--dry-run shows the plan and changes no byte (exit code as without --fix)', async () => {
    const state = copyFixture(TWO_AGENTS)
    fs.chmodSync(state, 0o755)
    const snap = snapshot(state)
    const r = await runCli(['doctor', '--fix', '--dry-run', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code).toBe(3)
    expect(r.stdout).toContain('would: rewrite sessionFile to the local path')
    expect(r.stdout).toContain('would: chmod 700')
    expect(r.stdout).toContain('Dry run: --fix would repair 3 finding(s); nothing was changed.')
    expect(snapshot(state)).toEqual(snap)
    expect(fs.statSync(state).mode & 0o777).toBe(0o755)
    const j = json(await runCli(['doctor', '--fix', '--dry-run', '--json', '--state-dir', state], {env: baseEnv(tempDir())}))
    expect(j.dryRun).toBe(true)
    expect(j.fixed).toBe(0)
    expect(j.findings.every((f: any) => !f.fixed)).toBe(true)
  })

  it('human output groups findings by agent with severity marks and a summary line', async () => {
    const state = copyFixture(TWO_AGENTS)
    const r = await runCli(['doctor', '--state-dir', state], {env: baseEnv(tempDir())})
    expect(r.code).toBe(3)
    const out = r.stdout
    expect(out).toMatch(/^State dir .+\n {2}✔ ok$/m)
    expect(out.indexOf('Agent main (1 session, 1 transcript)')).toBeLessThan(out.indexOf('Agent work (1 session, 1 transcript)'))
    expect(out).toContain('⚠ warn  session-file-relocated [agent:main:main]')
    expect(out).toContain('Summary: 0 error(s), 2 warning(s), 0 info.')
    expect(out).toContain(`Run "clawkit doctor --fix --state-dir ${state}" to repair 2 finding(s)`)
    expect(r.stderr).toBe('')
  })
})
