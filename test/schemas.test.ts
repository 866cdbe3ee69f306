// The `--json` contract: schemas/*.schema.json are what `npm run schemas` makes of the exported result types today,
// and every command's real output (through the built CLI, on fixture copies and the mock servers) validates against
// its schema, a failure's error envelope included.
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {generateSchemas, SCHEMA_DIR, schemaFile, SCHEMAS} from '../scripts/schemas.js'
import type {AgentRunResult} from '../src/agent/output.js'
import type {MessageSendResult} from '../src/channels/send.js'
import type {DoctorResult} from '../src/doctor/types.js'
import type {SessionsExportResult} from '../src/sessions/export.js'
import type {SessionsHistoryResult} from '../src/sessions/history.js'
import type {SessionsLineageResult} from '../src/sessions/lineage.js'
import type {SessionsSearchResult} from '../src/commands/sessions/search.js'
import type {SessionsUsageResult} from '../src/commands/sessions/usage.js'
import type {SessionsListResult} from '../src/sessions/list.js'
import type {SessionsResetPlan, SessionsResetResult} from '../src/sessions/reset.js'
import type {SessionsCleanupResult} from '../src/sessions/cleanup.js'
import type {SessionsArchiveResult, SessionsDeleteResult, SessionsRestoreResult} from '../src/sessions/lifecycle.js'
import type {StatusResult} from '../src/status/status.js'
import type {UndoListResult, UndoPlan, UndoPruneResult, UndoResult} from '../src/commands/undo.js'
import {type AgentEnv, setup as setupAgent} from './e2e/agent/setup.js'
import {COMPACTION, copyFixture, json, runCli, TWO_AGENTS} from './support/cli.js'
import {expectValidFollowLines, startFollow} from './support/follow.js'
import {channelEnv, type FakeChannels, MISSING_TELEGRAM_CHAT, startFakeChannels} from './support/fake-channels.js'
import {ajv, checked, expectDoc, expectError, validDoc, validator} from './support/schema-check.js'

describe('schemas/ is generated from the current types', () => {
  it('every committed schema equals a fresh generation, and no schema file is left over (else: run npm run schemas)', async () => {
    const fresh = await generateSchemas()
    const committed = fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json'))
    const expected = Object.keys(fresh).map((n) => `${n}.schema.json`)
    const extra = committed.filter((f) => !expected.includes(f))
    const missing = expected.filter((f) => !committed.includes(f))
    const stale = SCHEMAS.filter((s) => committed.includes(`${s.name}.schema.json`) && fs.readFileSync(schemaFile(s.name), 'utf8') !== fresh[s.name])
    const problems = [
      ...stale.map((s) => `schemas/${s.name}.schema.json is stale (${s.type} in ${s.module} changed)`),
      ...missing.map((f) => `schemas/${f} is missing`),
      ...extra.map((f) => `schemas/${f} belongs to no entry of scripts/schemas.js`),
    ]
    if (problems.length > 0) throw new Error(`${problems.join('; ')}: run npm run schemas and commit schemas/`)
  }, 120_000)
})

let fake: FakeChannels
let a: AgentEnv
/** One copy of the two-agents fixture serves every command: reads first, then the commands that write. */
const run = (...args: string[]) => a.run(args)

beforeAll(async () => {
  fake = await startFakeChannels()
  a = await setupAgent({fixture: TWO_AGENTS})
  Object.assign(a.env, channelEnv(fake))
})
afterAll(async () => {
  await a?.mock.close()
  await fake?.close()
})

describe('every --json document validates against its schema', () => {
  it('sessions list: one agent, --all-agents with --active (stores, allAgents), the `sessions` alias, --usage, and a bad --limit', async () => {
    const one = expectDoc<SessionsListResult>(await run('sessions', 'list', '--json'), 'sessions-list')
    expect(one.sessions.length).toBeGreaterThan(0)
    const all = expectDoc<SessionsListResult>(await run('sessions', 'list', '--all-agents', '--active', '100000000', '--json'), 'sessions-list')
    expect(all.stores).toHaveLength(2)
    expectDoc<SessionsListResult>(await run('sessions', '--limit', '1', '--json'), 'sessions-list')
    expect(expectDoc<SessionsListResult>(await run('sessions', 'list', '--usage', '--json'), 'sessions-list').sessions[0].usage?.calls).toBeGreaterThan(0)
    expect(expectError(await run('sessions', 'list', '--limit', '0', '--json'), 'sessions-list').code).toBe('E_BAD_LIMIT')
  })

  it('sessions history: tool calls and results, a compaction with --raw, a torn line (badLines), and an unknown session', async () => {
    const h = expectDoc<SessionsHistoryResult>(await run('sessions', 'history', 'agent:main:main', '--json'), 'sessions-history')
    expect(h.entries.some((e) => (e.toolCalls?.length ?? 0) > 0) && h.entries.some((e) => e.toolResult)).toBe(true)
    const compaction = copyFixture(COMPACTION)
    const c = expectDoc<SessionsHistoryResult>(await runCli(['sessions', 'history', 'main', '--raw', '--limit', '50', '--json', '--state-dir', compaction], {env: a.env}), 'sessions-history')
    expect(c.entries.some((e) => e.type === 'compaction')).toBe(true)
    expect(c.raw?.length).toBeGreaterThan(0)
    fs.appendFileSync(path.join(a.state, 'agents', 'work', 'sessions', '704f285c-af26-493e-ab33-9383ab17a8c0.jsonl'), '{"type":"message","id":\n')
    const torn = expectDoc<SessionsHistoryResult>(await run('sessions', 'history', 'agent:work:main', '--json'), 'sessions-history')
    expect(torn.badLines.length).toBeGreaterThan(0)
    expect(expectError(await run('sessions', 'history', 'agent:main:nope', '--json'), 'sessions-history').code).toBe('E_SESSION_NOT_FOUND')
  })

  it('sessions history --follow: each JSON line (the start, the tail\'s entries, a line landing unreadable) and a refused --all with a session', async () => {
    const state = copyFixture(TWO_AGENTS)
    const f = startFollow(['sessions', 'history', 'main', '--follow', '--json', '--state-dir', state], a.env)
    try {
      await f.waitFor((t) => JSON.parse(t).kind === 'session')
      fs.appendFileSync(path.join(state, 'agents', 'main', 'sessions', '0caed29d-8df6-4457-a9cd-00bb9d2b22e3.jsonl'), 'not json\n')
      await f.waitFor((t) => JSON.parse(t).kind === 'unreadable')
    } finally {
      await f.stop()
    }
    const kinds = expectValidFollowLines(f).map((d) => d.kind)
    expect(new Set(kinds)).toEqual(new Set(['session', 'entry', 'unreadable']))
    checked.set('sessions-follow', new Set([...(checked.get('sessions-follow') ?? []), 'ok']))
    expect(expectError(await run('sessions', 'history', 'main', '--follow', '--all', '--json'), 'sessions-follow').code).toBe('E_FLAG_CONFLICT')
  })

  it('sessions usage: --all-agents by model, by session, a breakdown in a time zone, and a bad --since', async () => {
    const u = expectDoc<SessionsUsageResult>(await run('sessions', 'usage', '--all-agents', '--by', 'model', '--json'), 'sessions-usage')
    expect(u.total.calls).toBeGreaterThan(0)
    const b = expectDoc<SessionsUsageResult>(await run('sessions', 'usage', '--all-agents', '--by', 'week,channel,kind', '--timezone', 'Asia/Tokyo', '--json'), 'sessions-usage')
    expect(b.rows[0].values).toHaveLength(3)
    // With a budget (the document's `budget`); its exit code is 7 when the limit is passed, 0 within.
    const withBudget = await run('sessions', 'usage', '--max-cost', '0.000001', '--per', 'month', '--json')
    const budget = validDoc(withBudget, 'sessions-usage', 'sessions-usage') as SessionsUsageResult
    expect(budget.budget?.budgets).toHaveLength(1)
    expect(withBudget.code).toBe(budget.budget!.over > 0 ? 7 : 0)
    expectDoc<SessionsUsageResult>(await run('sessions', 'usage', '--json'), 'sessions-usage')
    expect(expectError(await run('sessions', 'usage', '--since', 'soon', '--json'), 'sessions-usage').code).toBe('E_BAD_FLAG')
  })

  it('sessions search: hits of every kind across agents (a tool call and its result), no hit, and an invalid --regex', async () => {
    const s = expectDoc<SessionsSearchResult>(await run('sessions', 'search', 'exec', '--all-agents', '--include-archived', '--json'), 'sessions-search')
    expect(s.hits.map((h) => h.kind)).toEqual(expect.arrayContaining(['toolCall', 'toolResult']))
    expect(expectDoc<SessionsSearchResult>(await run('sessions', 'search', 'no such text anywhere', '--json'), 'sessions-search').count).toBe(0)
    expect(expectError(await run('sessions', 'search', '(', '--regex', '--json'), 'sessions-search').code).toBe('E_BAD_REGEX')
  })

  it('status: plain and --all (relocated transcripts, a torn line), and an unknown flag', async () => {
    expectDoc<StatusResult>(await run('status', '--json'), 'status')
    expect(expectDoc<StatusResult>(await run('status', '--all', '--json'), 'status').all).toBe(true)
    expect(expectError(await run('status', '--bogus', '--json'), 'status').code).toBe('E_UNKNOWN_FLAG')
  })

  it('doctor: findings with details, --fix --dry-run, a real --fix with backups, and an unknown agent id', async () => {
    // A stale lock of a dead pid: a finding with details, which --fix removes.
    fs.writeFileSync(path.join(a.state, 'agents', 'main', 'sessions', 'sessions.json.lock'), JSON.stringify({pid: 999_999_999, createdAt: new Date(0).toISOString()}))
    // doctor exits with the code its document names (3: warnings remain, 4: errors remain).
    const doctor = async (...args: string[]) => {
      const r = await run('doctor', ...args, '--json')
      return expectDoc<DoctorResult>(r, 'doctor', json<DoctorResult>(r).exitCode)
    }
    const found = await doctor()
    expect(found.ok).toBe(false)
    expect(found.findings.some((f) => f.details)).toBe(true)
    expect((await doctor('--fix', '--dry-run')).dryRun).toBe(true)
    const fixed = await doctor('--fix', '--yes')
    expect(fixed.fixed).toBeGreaterThan(0)
    expect(fixed.findings.some((f) => f.fixed && f.backup)).toBe(true)
    expect(expectError(await run('doctor', '--agent', '../x', '--json'), 'doctor').code).toBe('E_UNKNOWN_AGENT')
  })

  it('sessions reset: --dry-run (the plan), a real reset, then history of the new session, and no session given', async () => {
    const plan = expectDoc<SessionsResetPlan>(await run('sessions', 'reset', 'agent:work:main', '--dry-run', '--json'), 'sessions-reset')
    expect(plan.dryRun).toBe(true)
    const done = expectDoc<SessionsResetResult>(await run('sessions', 'reset', 'agent:work:main', '--json'), 'sessions-reset')
    expect(done.archivedTranscript).toEqual(expect.any(String))
    const fresh = expectDoc<SessionsHistoryResult>(await run('sessions', 'history', 'agent:work:main', '--json'), 'sessions-history')
    expect(fresh.sessionId).toBe(done.sessionId)
    expect(expectError(await run('sessions', 'reset', '--json'), 'sessions-reset').code).toBe('E_MISSING_SESSION')
  })

  it('undo: --list, --dry-run, the undo of that reset, --prune, and nothing left to undo', async () => {
    const list = expectDoc<UndoListResult>(await run('undo', '--list', '--json'), 'undo')
    expect(list.entries[0]).toMatchObject({action: 'reset', status: 'applied'})
    expect(expectDoc<UndoPlan>(await run('undo', '--dry-run', '--json'), 'undo').conflicts).toEqual([])
    // Undone and applied again, so that the next cases still see the reset of the work key.
    const undone = expectDoc<UndoResult>(await run('undo', '--json'), 'undo')
    expectDoc<UndoResult>(await run('undo', undone.journal!, '--json'), 'undo')
    expect(expectDoc<UndoPruneResult>(await run('undo', '--prune', '--json'), 'undo').pruned).toEqual([])
    expect(expectError(await run('undo', '20000101-000000-0000', '--json'), 'undo').code).toBe('E_JOURNAL_NOT_FOUND')
  })

  it('sessions archive, delete, restore: each done on a copy of the compaction fixture, and each refused', async () => {
    const state = copyFixture(COMPACTION)
    const on = (...args: string[]) => runCli([...args, '--state-dir', state], {env: a.env})
    const key = 'agent:main:explicit:0a1b2c3d-0000-4000-8000-000000000001'
    expect(expectDoc<SessionsArchiveResult>(await on('sessions', 'archive', key, '--json'), 'sessions-archive').sessions[0].changed).toBe(true)
    expect(expectDoc<SessionsDeleteResult>(await on('sessions', 'delete', key, '--json'), 'sessions-delete').sessions[0].archived).toHaveLength(1)
    expect(expectDoc<SessionsRestoreResult>(await on('sessions', 'restore', key, '--json'), 'sessions-restore').how).toBe('deleted-archive')
    expect(expectError(await on('sessions', 'archive', '--json'), 'sessions-archive').code).toBe('E_MISSING_SESSION')
    expect(expectError(await on('sessions', 'delete', 'agent:main:main', '--json'), 'sessions-delete').code).toBe('E_MAIN_SESSION')
    expect(expectError(await on('sessions', 'restore', key, '--json'), 'sessions-restore').code).toBe('E_NOT_ARCHIVED')
    // cleanup on a fresh copy: its explicit key, two days old, is archived with --older-than 1d.
    const fresh = copyFixture(COMPACTION)
    const clean = (...args: string[]) => runCli(['sessions', 'cleanup', '--rules', '2026.9', '--older-than', '1d', ...args, '--json', '--state-dir', fresh], {env: a.env})
    expect(expectDoc<SessionsCleanupResult>(await clean(), 'sessions-cleanup').stores[0].changes).toHaveLength(1)
    expect(expectDoc<SessionsCleanupResult>(await clean('--yes'), 'sessions-cleanup').journal).toEqual(expect.any(String))
    expect(expectError(await clean('--max-disk', 'lots'), 'sessions-cleanup').code).toBe('E_BAD_FLAG')
  })

  it('sessions lineage and export: the work key after its reset (an archive and the live one), history --include-archived, an export to a file, and failures', async () => {
    const l = expectDoc<SessionsLineageResult>(await run('sessions', 'lineage', 'agent:work:main', '--json'), 'sessions-lineage')
    expect(l.sessions.map((s) => s.where)).toEqual(['reset-archive', 'live'])
    const h = expectDoc<SessionsHistoryResult>(await run('sessions', 'history', 'agent:work:main', '--include-archived', '--json'), 'sessions-history')
    expect(h.sessions).toHaveLength(2)
    expect(expectError(await run('sessions', 'lineage', 'agent:main:nope', '--json'), 'sessions-lineage').code).toBe('E_SESSION_NOT_FOUND')
    const out = path.join(a.home, 'work.html')
    const e = expectDoc<SessionsExportResult>(await run('sessions', 'export', 'agent:work:main', '--include-archived', '--format', 'html', '--out', out, '--json'), 'sessions-export')
    expect(e.sessions).toHaveLength(2)
    expect(expectError(await run('sessions', 'export', 'agent:work:main', '--out', out, '--json'), 'sessions-export').code).toBe('E_EXISTS')
  })

  it('agent: a turn on the mock model, a delivered turn (delivery), a delivery that fails (deliveryError), and no message', async () => {
    const turn = expectDoc<AgentRunResult>(await run('agent', '--agent', 'main', '-m', 'hello', '--json'), 'agent')
    expect(turn.payloads[0].text).toBe('Echo: hello')
    const delivered = expectDoc<AgentRunResult>(await run('agent', '--agent', 'main', '-m', 'ship it', '--deliver', '--channel', 'telegram', '--reply-to', '12345', '--json'), 'agent')
    expect(delivered.delivery?.channel).toBe('telegram')
    // The turn is stored, the delivery is not: the turn's document with deliveryError, exit 1.
    const failed = expectDoc<AgentRunResult>(await run('agent', '--agent', 'work', '-m', 'again', '--deliver', '--json'), 'agent', 1)
    expect(failed.deliveryError?.code).toBe('E_DELIVERY_CHANNEL_REQUIRED')
    expect(expectError(await run('agent', '--agent', 'main', '--json'), 'agent').code).toBe('E_NO_MESSAGE')
  })

  it('message send: a send mirrored into the session, a repeated idempotency key, --dry-run (requests), and a chat the platform does not know', async () => {
    const send = (...args: string[]) => run('message', 'send', ...args, '--json')
    const sent = expectDoc<MessageSendResult>(await send('--channel', 'telegram', '-t', '123456789', '-m', 'Build finished', '--idempotency-key', 'schema-k1'), 'message-send')
    expect(sent.payload.mirrored).not.toBeNull()
    const again = expectDoc<MessageSendResult>(await send('--channel', 'telegram', '-t', '123456789', '-m', 'Build finished', '--idempotency-key', 'schema-k1'), 'message-send')
    expect(again.payload.duplicate).toBe(true)
    const dry = expectDoc<MessageSendResult>(await send('--channel', 'discord', '-t', 'channel:123456789012345678', '-m', 'hi', '--dry-run'), 'message-send')
    expect(dry.payload.requests?.length).toBeGreaterThan(0)
    expect(expectError(await send('--channel', 'telegram', '-t', MISSING_TELEGRAM_CHAT, '-m', 'x'), 'message-send').message).toMatch(/chat/i)
  })

  it('an unknown command under --json prints the error envelope too', async () => {
    expect(expectError(await run('sessions', 'lsit', '--json'), 'unknown command').code).toBe('E_UNKNOWN_COMMAND')
  })

  it('store export|info|verify: their error envelopes (their documents need a SQLite store: schemas.sqlite.test.ts)', async () => {
    expect(expectError(await run('store', 'export', '--json'), 'store-export').code).toBe('E_USAGE')
    expect(expectError(await run('store', 'info', '--agent', 'nope', '--json'), 'store-info').exitCode).toBe(2)
    expect(expectError(await run('store', 'verify', '--json'), 'store-verify')).toMatchObject({code: 'E_NOTHING_TO_VERIFY', exitCode: 66})
  })

  it('index: its error envelope (its document needs node:sqlite: schemas.sqlite.test.ts)', async () => {
    expect(expectError(await run('index', '--drop', '--status', '--json'), 'index').exitCode).toBe(2)
  })

  it('status --store-url: its error envelope (its document needs a PostgreSQL replica: test/e2e/fleet/read.test.ts)', async () => {
    expect(expectError(await runCli(['status', '--store-url', 'postgres://nobody@127.0.0.1:1/fleet', '--json']), 'status-fleet').code).toBe('E_STORE_DB')
  })

  it('sync: its error envelope (its document needs PostgreSQL: test/e2e/fleet/sync.test.ts)', async () => {
    expect(expectError(await run('sync', '--json'), 'sync').code).toBe('E_NO_STORE_URL')
  })

  it('every schema of scripts/schemas.js was checked against real output, success and failure', () => {
    for (const s of SCHEMAS) {
      // A tool result of clawkit mcp: the MCP tests validate it (test/e2e/mcp.test.ts); a failed call is an isError result.
      if (s.name === 'error' || s.mcp) continue
      expect([...(checked.get(s.name) ?? [])].sort(), s.name).toEqual(s.sqlite || s.pg ? ['error'] : ['error', 'ok'])
    }
  })
})

describe('the schemas are strict enough to catch a changed document', () => {
  // Real documents, each changed the way a careless edit of a result type would change the output.
  it('a renamed field, a retyped field, a new field, and a dropped required field each fail validation', async () => {
    const list = json<SessionsListResult>(await runCli(['sessions', 'list', '--json', '--state-dir', copyFixture(TWO_AGENTS)], {env: a.env}))
    const validate = validator('sessions-list')
    expect(validate(list), ajv.errorsText(validate.errors)).toBe(true)
    // Deliberately ill-typed edits of a parsed document.
    const variants: Array<[string, (d: any) => void]> = [
      ['renamed row field', (d) => {
        d.sessions[0].sessionKey = d.sessions[0].key
        delete d.sessions[0].key
      }],
      ['retyped count', (d) => (d.count = String(d.count))],
      ['unknown top-level field', (d) => (d.extra = 1)],
      ['missing contextTokens', (d) => delete d.sessions[0].contextTokens],
      ['kind outside its union', (d) => (d.sessions[0].kind = 'channel')],
    ]
    for (const [what, change] of variants) {
      const d = structuredClone(list)
      change(d)
      expect(validate(d), what).toBe(false)
    }
    const envelope = validator('error')
    expect(envelope({error: {code: 'E_X', message: 'm', exitCode: 1}})).toBe(true)
    expect(envelope({error: {code: 'E_X', message: 'm', exitCode: '1'}})).toBe(false)
    expect(envelope({error: {code: 'E_X', message: 'm', exitCode: 1, hint: 'x'}})).toBe(false)
  })
})
