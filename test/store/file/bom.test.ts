// A sessions.json (or clawkit's config.json) that starts with a UTF-8 byte order mark is readable: every reader sees
// its rows, writers keep them, and doctor never "recovers" (empties) it.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {projectEntries, readStoreEntry} from '../../../src/store/file/index-scan.js'
import {parseStoreText} from '../../../src/store/file/store.js'
import {baseEnv, copyFixture, json, runCli, sessionsJsonPath, tempDir, TWO_AGENTS} from '../../support/cli.js'

const BOM = '\uFEFF'

function bomState(): {state: string; file: string; before: Record<string, any>} {
  const state = copyFixture(TWO_AGENTS)
  const file = sessionsJsonPath(state)
  const text = fs.readFileSync(file, 'utf8')
  fs.writeFileSync(file, BOM + text)
  return {state, file, before: JSON.parse(text)}
}

describe('BOM-led sessions.json', () => {
  it('doctor --fix on a BOM-led index keeps every row and its metadata (no store-corrupt, no rebuild)', async () => {
    const {state, file, before} = bomState()
    const env = baseEnv(tempDir())
    const check = json(await runCli(['doctor', '--json', '--agent', 'main', '--state-dir', state], {env}))
    expect(check.findings.map((f: {id: string}) => f.id)).not.toContain('store-corrupt')
    expect(check.agents[0].sessions).toBe(Object.keys(before).length)
    const r = await runCli(['doctor', '--fix', '--yes', '--json', '--agent', 'main', '--state-dir', state], {env})
    expect([0, 3, 4], r.stderr).toContain(r.code)
    const doc = json(r)
    expect(doc.findings.filter((f: {fixed: boolean; id: string}) => f.fixed).map((f: {id: string}) => f.id)).not.toContain('store-corrupt')
    const after = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''))
    expect(Object.keys(after)).toEqual(Object.keys(before))
    for (const k of Object.keys(before)) expect(after[k].label ?? null, k).toEqual(before[k].label ?? null)
    expect(Object.keys(after).some((k) => k.includes(':explicit:') && !(k in before))).toBe(false)
  })

  it('doctor warns that OpenClaw would read a BOM-led index as empty (store-bom); --fix removes only those 3 bytes, with a backup', async () => {
    const {state, file} = bomState()
    const original = fs.readFileSync(file)
    const env = baseEnv(tempDir())
    const check = json(await runCli(['doctor', '--json', '--agent', 'main', '--state-dir', state], {env}))
    expect(check.findings.find((f) => f.id === 'store-bom')).toMatchObject({severity: 'warn', fixable: true, path: file})
    const fixed = json(await runCli(['doctor', '--fix', '--yes', '--json', '--agent', 'main', '--state-dir', state], {env}))
    const f = fixed.findings.find((x) => x.id === 'store-bom')
    expect(f).toMatchObject({fixed: true, backup: expect.stringMatching(/sessions\.json\.bak\.\d+$/)})
    expect(fs.readFileSync(f!.backup!).equals(original)).toBe(true)
    // Only the BOM went: the index repairs of the same run (relocated sessionFile) changed the rest afterwards.
    const again = json(await runCli(['doctor', '--json', '--agent', 'main', '--state-dir', state], {env}))
    expect(again.findings.map((x) => x.id)).not.toContain('store-bom')
    expect(fs.readFileSync(file)[0]).toBe(0x7b)
  })

  it('doctor --fix on a BOM-led index with nothing else to repair leaves every byte after the BOM as it was', async () => {
    const {state, file} = bomState()
    const env = baseEnv(tempDir())
    // Settle every other repair first, then put the BOM back on the repaired file.
    await runCli(['doctor', '--fix', '--yes', '--json', '--agent', 'main', '--state-dir', state], {env})
    const settled = fs.readFileSync(file)
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), settled]))
    const r = json(await runCli(['doctor', '--fix', '--yes', '--json', '--agent', 'main', '--state-dir', state], {env}))
    expect(r.findings.filter((x) => x.fixed).map((x) => x.id)).toEqual(['store-bom'])
    expect(fs.readFileSync(file).equals(settled)).toBe(true)
  })

  it('list, history and status read a BOM-led index; reset rewrites it without the BOM and keeps every other row', async () => {
    const {state, file, before} = bomState()
    const env = baseEnv(tempDir())
    const list = json(await runCli(['sessions', 'list', '--json', '--state-dir', state], {env}))
    expect(list.count).toBe(Object.keys(before).length)
    const hist = await runCli(['sessions', 'history', 'main', '--json', '--state-dir', state], {env})
    expect(hist.code, hist.stderr).toBe(0)
    const status = await runCli(['status', '--json', '--state-dir', state], {env})
    expect(status.code, status.stderr).toBe(0)
    const r = await runCli(['sessions', 'reset', 'main', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    const text = fs.readFileSync(file, 'utf8')
    // OpenClaw 2026.4.27 reads a BOM-led index as empty; the rewrite is in its own serialization, without one.
    expect(text.startsWith(BOM)).toBe(false)
    const after = JSON.parse(text)
    for (const k of Object.keys(before)) if (k !== 'agent:main:main') expect(after[k], k).toEqual(before[k])
  })

  it('the entry-by-entry reader of large indexes gives the same rows as the whole parse after a BOM', async () => {
    const file = path.join(tempDir(), 'sessions.json')
    const data: Record<string, unknown> = {}
    for (let i = 0; i < 50; i++) data[`agent:main:explicit:s${i}`] = {sessionId: `s${i}`, updatedAt: i, pad: 'x'.repeat(500)}
    fs.writeFileSync(file, BOM + JSON.stringify(data, null, 2))
    let wholeParses = 0
    const rows = await projectEntries(file, (k, v) => (v as {sessionId: string}).sessionId, (t) => {
      wholeParses++
      return parseStoreText(t, file)
    }, {minBytes: 0, chunkBytes: 4096})
    expect(wholeParses).toBe(0)
    expect([...rows!.entries()]).toEqual(Object.keys(data).map((k, i) => [k, `s${i}`]))
    const fh = await fsp.open(file, 'r')
    try {
      expect(await readStoreEntry(fh, fs.statSync(file).size, 'agent:main:explicit:s7')).toMatchObject({sessionId: 's7'})
    } finally {
      await fh.close()
    }
  })

  it("clawkit's own config.json with a BOM is read (its agent setting applies)", async () => {
    const state = copyFixture(TWO_AGENTS)
    const home = tempDir()
    const env = baseEnv(home)
    fs.mkdirSync(env.CLAWKIT_CONFIG_DIR, {recursive: true})
    fs.writeFileSync(path.join(env.CLAWKIT_CONFIG_DIR, 'config.json'), `${BOM}{"agent": "work"}`)
    const r = await runCli(['sessions', 'list', '--json', '--state-dir', state], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r).sessions.every((s: {key: string}) => s.key.startsWith('agent:work:'))).toBe(true)
  })
})
