// `sessions export` through the real CLI on a JSON-era fixture copy whose main session was reset twice (clawkit's own
// reset and `agent -m` turns against the mock API, test/support/reset-twice.ts), with a config holding a bot token and
// messages that carry that token, a key-shaped string and an injected <script>.
import fs from 'node:fs'
import path from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import type {SessionsExportResult} from '../../../src/commands/sessions/export.js'
import {json, jsonError, tempDir} from '../../support/cli.js'
import type {AgentEnv} from '../agent/setup.js'
import {BOT_TOKEN, exportState, KEY_SHAPED, messageTexts, transcriptOfId} from '../../support/reset-twice.js'
import {escapeHtml} from '../../../src/sessions/export-formats.js'

let a: AgentEnv
let ids: string[]
let files: string[]

describe('sessions export (JSON era, a key reset twice)', () => {
  beforeAll(async () => {
    ;({a, ids} = await exportState())
    files = ids.map((id) => transcriptOfId(a.state, id))
    return () => a.mock.close()
  }, 60_000)

  it('jsonl: the current transcript line for line as stored (no secret in it), to stdout', async () => {
    const r = await a.run(['sessions', 'export', 'main', '--format', 'jsonl', '--agent', 'work'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(fs.readFileSync(path.join(a.state, 'agents', 'work', 'sessions', '704f285c-af26-493e-ab33-9383ab17a8c0.jsonl'), 'utf8'))
  })

  it('jsonl --include-archived --out DIR: one file per session; the config token is removed wherever it appears, every other byte kept', async () => {
    const dir = tempDir()
    const r = await a.run(['sessions', 'export', 'main', '--format', 'jsonl', '--include-archived', '--out', dir, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const res = json<SessionsExportResult>(r)
    expect(res.sessions.map((s) => s.sessionId)).toEqual(ids)
    for (const [i, id] of ids.entries()) {
      const got = fs.readFileSync(path.join(dir, `${id}.jsonl`), 'utf8')
      expect(got).toBe(fs.readFileSync(files[i], 'utf8').split(BOT_TOKEN).join('<redacted>'))
      expect(fs.statSync(path.join(dir, `${id}.jsonl`)).mode & 0o777).toBe(0o600)
    }
    expect(fs.readFileSync(files[1], 'utf8')).toContain(BOT_TOKEN)
    expect(fs.readdirSync(dir).sort()).toEqual(ids.map((id) => `${id}.jsonl`).sort())
  })

  it('md --include-archived: title, ids, model, every message of the three sessions with its time and offset, boundaries, tool calls, a cost footer; no config secret', async () => {
    const r = await a.run(['sessions', 'export', 'main', '--include-archived'], {})
    expect(r.code, r.stderr).toBe(0)
    const md = r.stdout
    expect(md.startsWith('# Session agent:main:main\n')).toBe(true)
    for (const id of ids) expect(md).toContain(id)
    expect(md).toContain('- Model: mockant/claude-mock')
    for (const f of files) for (const t of messageTexts(f, ['user', 'assistant'])) expect(md).toContain(t.split(BOT_TOKEN).join('<redacted>'))
    expect(md.match(/^## Session `/gm)).toHaveLength(3)
    expect(md).toMatch(/^### User \u00b7 \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{2}:\d{2}$/m)
    expect(md).toContain('**Tool call:** `')
    expect(md).toMatch(/^\d+ messages \u00b7 tokens: \d+ in, \d+ out, .* cost \$\d+\.\d{4}$/m)
    expect(md).not.toContain(BOT_TOKEN)
    // Only --redact masks what merely looks like a key.
    expect(md).toContain(KEY_SHAPED)
    const red = await a.run(['sessions', 'export', 'main', '--include-archived', '--redact'])
    expect(red.stdout).not.toContain(KEY_SHAPED)
    expect(red.stdout).toContain('the key <redacted>')
  })

  it('html: one self-contained page, every message escaped (an injected <script> is text), no external reference, no config secret', async () => {
    const out = path.join(tempDir(), 'chat.html')
    const r = await a.run(['sessions', 'export', 'main', '--include-archived', '--format', 'html', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`to ${out}`)
    const html = fs.readFileSync(out, 'utf8')
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true)
    for (const f of files) for (const t of messageTexts(f, ['user', 'assistant'])) for (const line of t.split(BOT_TOKEN).join('<redacted>').split('\n')) expect(html).toContain(escapeHtml(line))
    expect(html).not.toMatch(/<script|<img|<link|<iframe|src="|href="|url\(|@import/i)
    expect(html).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;')
    expect(html).toContain("default-src 'none'")
    expect(html).toContain('prefers-color-scheme:dark')
    expect(html).toContain('<details class="call"><summary>tool call ')
    expect(html).not.toContain(BOT_TOKEN)
  })

  it('--out refuses an existing file unless --force; --json needs --out; a failed export leaves no file', async () => {
    const out = path.join(tempDir(), 'chat.md')
    fs.writeFileSync(out, 'mine')
    const r = await a.run(['sessions', 'export', 'main', '--out', out])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('already exists; nothing was written. Pass --force')
    expect(fs.readFileSync(out, 'utf8')).toBe('mine')
    const forced = await a.run(['sessions', 'export', 'main', '--out', out, '--force', '--json'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(json<SessionsExportResult>(forced)).toMatchObject({format: 'md', out, messages: 2, redacted: false})
    expect(fs.readFileSync(out, 'utf8')).toContain('try this: <script>')
    expect(fs.readdirSync(path.dirname(out))).toEqual(['chat.md'])
    const noOut = await a.run(['sessions', 'export', 'main', '--json'])
    expect(noOut.code).toBe(2)
    expect(jsonError(noOut).code).toBe('E_FLAG_CONFLICT')
    const missing = await a.run(['sessions', 'export', 'agent:main:nope', '--out', path.join(path.dirname(out), 'x.md')])
    expect(missing.code).toBe(1)
    expect(fs.readdirSync(path.dirname(out))).toEqual(['chat.md'])
  })
})
