import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {scanStore, UNREAD_ENTRY_FIELDS} from '../../../src/store/diagnostics/file/scan.js'
import {serializeStore} from '../../../src/store/file/store.js'
import type {SessionStoreData} from '../../../src/store/types.js'
import {baseEnv, copyFixture, json, ROOT, runCli, sessionsJsonPath, TWO_AGENTS} from '../../support/cli.js'

/** The fixture's main store grown with copies of its real entry (~16 KB each) past the 32 MiB entry-by-entry threshold. */
function realSizedState(): {state: string; file: string; data: SessionStoreData} {
  const state = copyFixture(TWO_AGENTS)
  const file = sessionsJsonPath(state)
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as SessionStoreData
  const [key, entry] = Object.entries(data)[0]
  for (let i = 0; i < 2400; i++) data[`agent:main:telegram:direct:${i}`] = {...structuredClone(entry), sessionId: `copy-${i}`, updatedAt: entry.updatedAt - i - 1, sessionFile: undefined}
  fs.writeFileSync(file, serializeStore(data))
  expect(fs.statSync(file).size).toBeGreaterThan(32 * 1024 * 1024)
  expect(Object.keys(data)[0]).toBe(key)
  return {state, file, data}
}

describe('doctor and status on a real-sized index', () => {
  it('the scan reads it entry by entry into what a whole parse gives, less the fields no check reads', async () => {
    const {file, data} = realSizedState()
    const scan = await scanStore(['main'], true, file)
    expect(scan.storeError).toBeUndefined()
    const want = Object.fromEntries(
      Object.entries(data).map(([k, e]) => {
        const copy: Record<string, unknown> = {...JSON.parse(JSON.stringify(e))}
        for (const f of UNREAD_ENTRY_FIELDS) delete copy[f]
        return [k, copy]
      }),
    )
    expect(scan.data).toEqual(want)
    expect(Object.keys(scan.data!)).toEqual(Object.keys(data))
  })

  it('status and doctor count and check every entry', async () => {
    const {state, data} = realSizedState()
    const env = baseEnv(state)
    const status = await runCli(['status', '--json', '--state-dir', state], {env})
    expect(status.code, status.stderr).toBe(0)
    const s = json<{agents: {agents: {id: string; sessionsCount: number}[]}; doctor: {ids: string[]}}>(status)
    expect(s.agents.agents.find((a) => a.id === 'main')?.sessionsCount).toBe(Object.keys(data).length)
    const doctor = await runCli(['doctor', '--json', '--agent', 'main', '--state-dir', state], {env})
    const d = json<{findings: {id: string}[]}>(doctor)
    // Every copy points at a transcript that does not exist: one finding each, so every entry was checked.
    expect(d.findings.filter((f) => f.id === 'transcript-missing').length).toBe(2400)
  }, 60_000)

  it('no code outside the scan reads the fields it leaves out (add them back to the scan before reading them)', () => {
    const files = (dir: string): string[] => fs.readdirSync(dir, {withFileTypes: true}).flatMap((d) => (d.isDirectory() ? files(path.join(dir, d.name)) : [path.join(dir, d.name)]))
    // The scan's entries reach doctor and status only; other code (sessions list, the SQLite store) reads entries of
    // its own, with these fields (or drops them itself, as list does).
    const readers = [...files(path.join(ROOT, 'src', 'doctor')), ...files(path.join(ROOT, 'src', 'status'))].filter((f) => f !== path.join(ROOT, 'src', 'doctor', 'scan.ts') && UNREAD_ENTRY_FIELDS.some((field) => fs.readFileSync(f, 'utf8').includes(field)))
    expect(readers).toEqual([])
  })
})
