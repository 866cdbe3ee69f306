// `sessions history --follow` (alias `sessions tail -f`) on the JSON-file era: the tail as history prints it, then every
// entry clawkit (or a file writer) appends, in order and never twice, across a reset, a rewrite and a torn line; a key
// that does not exist yet; --all; Ctrl-C and --until-idle. The SQLite era: follow.sqlite.test.ts; real OpenClaw
// writers: test/reliability/interop-follow.test.ts.
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import type {SessionsFollowLine} from '../../../src/commands/sessions/history.js'
import {agentEnvs} from '../agent/setup.js'
import {json, jsonError, runCli, sessionsJsonPath, TWO_AGENTS} from '../../support/cli.js'
import {expectValidFollowLines, type Follower, startFollow} from '../../support/follow.js'

const setup = agentEnvs()
const MAIN = '0caed29d-8df6-4457-a9cd-00bb9d2b22e3'

let followers: Follower[] = []
afterEach(async () => {
  await Promise.all(followers.map((f) => f.stop('SIGKILL')))
  followers = []
})

function follow(args: string[], env: Record<string, string>): Follower {
  const f = startFollow(args, env)
  followers.push(f)
  return f
}

const isJson = (pred: (d: SessionsFollowLine) => boolean) => (text: string) => pred(JSON.parse(text) as SessionsFollowLine)
const entryText = (text: string) => isJson((d) => d.kind === 'entry' && d.entry.text === text)
const entries = (docs: SessionsFollowLine[]) => docs.filter((d): d is Extract<SessionsFollowLine, {kind: 'entry'}> => d.kind === 'entry')

/** The ids of a transcript's entries, in file order (the header left out). */
function fileIds(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.type !== 'session').map((e) => e.id)
}

/** Appends entries to a transcript as clawkit's store library does (OpenClaw's ids, chained), without a CLI. */
async function append(file: string, ...texts: string[]): Promise<void> {
  const lib = await import('../../../src/store/index.js')
  await lib.appendEntries(file, texts.map((text) => ({type: 'message', message: {role: 'user', content: [{type: 'text', text}], timestamp: Date.now()}})))
}

const transcript = (state: string, sessionId = MAIN) => path.join(state, 'agents', 'main', 'sessions', `${sessionId}.jsonl`)
const indexOf = (state: string) => JSON.parse(fs.readFileSync(sessionsJsonPath(state), 'utf8'))

describe('sessions history --follow (JSON era)', () => {
  it('prints the tail as history --json has it, then each entry of two clawkit turns, in the transcript\'s order, none twice; Ctrl-C exits 130', async () => {
    const a = await setup({fixture: TWO_AGENTS})
    const history = json(await a.run(['sessions', 'history', 'main', '--limit', '3', '--json']))
    const f = follow(['sessions', 'history', 'main', '--follow', '--json', '--limit', '3', '--state-dir', a.state], a.env)
    await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === history.entries.at(-1)!.id))
    for (const text of ['first turn while followed', 'second turn while followed']) {
      const r = await a.run(['agent', '-m', text, '--session-key', 'agent:main:main', '--json'])
      expect(r.code, r.stderr).toBe(0)
      // The assistant's reply comes after the user's message: wait for the last line the turn wrote.
      const last = fileIds(transcript(a.state)).at(-1)!
      await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === last))
    }
    expect(await f.stop('SIGINT')).toEqual({code: 130, signal: null})
    const docs = expectValidFollowLines(f)
    expect(docs[0]).toMatchObject({kind: 'session', event: 'start', key: 'agent:main:main', sessionId: MAIN, truncated: true, previousSessionId: null, sessionFile: transcript(a.state)})
    // The tail: history's own entries, as history --json printed them.
    expect(entries(docs).slice(0, history.entries.length).map((d) => d.entry)).toEqual(history.entries)
    // Then exactly the entries written after it, in file order.
    const ids = fileIds(transcript(a.state))
    const shown = entries(docs).map((d) => d.entry.id)
    expect(shown).toEqual(ids.slice(ids.indexOf(history.entries[0].id)))
    expect(entries(docs).filter((d) => d.entry.role === 'user').map((d) => d.entry.text).slice(-2)).toEqual(['first turn while followed', 'second turn while followed'])
  })

  it('across a reset: the old session\'s last line first (read from its archive), then the reset, then the new session from its first entry', async () => {
    const a = await setup({fixture: TWO_AGENTS})
    const f = follow(['sessions', 'tail', '-f', 'main', '--json', '--limit', '1', '--state-dir', a.state], a.env)
    await f.waitFor(isJson((d) => d.kind === 'session'))
    // The follow is stopped while a line is written and the key reset (clawkit's reset, through its store library): the
    // line is in the transcript the reset archived before the follow has read it.
    const lib = await import('../../../src/store/index.js')
    f.child.kill('SIGSTOP')
    await append(transcript(a.state), 'the last word before the reset')
    const reset = await lib.OpenClawState.open({stateDir: a.state}).store('main').reset('agent:main:main', {cwd: a.state})
    f.child.kill('SIGCONT')
    const turn = await a.run(['agent', '-m', 'the first word after it', '--session-key', 'agent:main:main', '--json'])
    expect(turn.code, turn.stderr).toBe(0)
    const newFile = indexOf(a.state)['agent:main:main'].sessionFile
    await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === fileIds(newFile).at(-1)))
    const docs = expectValidFollowLines(f)
    const at = (pred: (d: SessionsFollowLine) => boolean) => docs.findIndex(pred)
    const before = at((d) => d.kind === 'entry' && d.entry.text === 'the last word before the reset')
    const boundary = at((d) => d.kind === 'session' && d.event === 'reset')
    expect(before).toBeGreaterThan(0)
    expect(boundary).toBeGreaterThan(before)
    expect(docs[boundary]).toMatchObject({previousSessionId: MAIN, sessionId: reset.sessionId, sessionFile: newFile})
    expect(docs.slice(0, boundary).every((d) => d.sessionId === MAIN)).toBe(true)
    // Every entry of the new transcript (its header aside), once, in order, under the new id.
    const after = entries(docs.slice(boundary))
    expect(after.map((d) => d.entry.id)).toEqual(fileIds(newFile))
    expect(after.every((d) => d.sessionId === reset.sessionId)).toBe(true)
    expect(new Set(entries(docs).map((d) => d.entry.id)).size).toBe(entries(docs).length)
  })

  it('a reset that keeps the transcript\'s name (OpenClaw 2026.4.27\'s /new): the new file is the new session, announced, the old one not repeated', async () => {
    const a = await setup({fixture: TWO_AGENTS})
    const f = follow(['sessions', 'history', 'main', '-f', '--json', '--limit', '1', '--state-dir', a.state], a.env)
    await f.waitFor(isJson((d) => d.kind === 'session'))
    const file = transcript(a.state)
    // OpenClaw's order: the transcript is archived, a new one written under the same name, then the index.
    fs.renameSync(file, `${file}.reset.2026-11-27T10-00-00.000Z`)
    const newId = '7e57f011-0000-4000-8000-000000000001'
    fs.writeFileSync(file, `${JSON.stringify({type: 'session', version: 3, id: newId, timestamp: new Date().toISOString(), cwd: '/w'})}\n`)
    await append(file, 'first in the renamed-over file')
    // Given time to see the new file before the index says so: it must not be taken for the old session.
    await new Promise((r) => setTimeout(r, 300))
    const index = indexOf(a.state)
    index['agent:main:main'] = {...index['agent:main:main'], sessionId: newId, sessionFile: file, updatedAt: Date.now()}
    fs.writeFileSync(sessionsJsonPath(a.state), JSON.stringify(index, null, 2))
    await f.waitFor(entryText('first in the renamed-over file'))
    const docs = expectValidFollowLines(f)
    const tail = docs.filter((d) => d.kind !== 'session' || d.event !== 'start')
    expect(tail.map((d) => (d.kind === 'entry' ? `${d.sessionId}:${d.entry.text ?? d.entry.type}` : `${d.kind}:${'event' in d ? d.event : ''}`))).toEqual([
      `${MAIN}:Tool finished.`,
      `${MAIN}:custom`,
      'session:reset',
      `${newId}:first in the renamed-over file`,
    ])
  })

  it('an atomic rewrite (a copy renamed over the transcript) shows only the entry it added; a torn line shows once it is complete, once', async () => {
    const a = await setup({fixture: TWO_AGENTS})
    const file = transcript(a.state)
    const f = follow(['sessions', 'history', 'main', '--follow', '--json', '--limit', '1', '--state-dir', a.state], a.env)
    await f.waitFor(isJson((d) => d.kind === 'session'))
    const last = fileIds(file).at(-1)!
    const line = (id: string, parentId: string, text: string) => `${JSON.stringify({type: 'message', id, parentId, timestamp: new Date().toISOString(), message: {role: 'user', content: [{type: 'text', text}], timestamp: Date.now()}})}\n`
    fs.writeFileSync(`${file}.tmp`, fs.readFileSync(file, 'utf8') + line('a0000001', last, 'added by a rewrite'))
    fs.renameSync(`${file}.tmp`, file)
    await f.waitFor(entryText('added by a rewrite'))
    const torn = line('a0000002', 'a0000001', 'written in two halves')
    fs.appendFileSync(file, torn.slice(0, 40))
    await new Promise((r) => setTimeout(r, 300))
    fs.appendFileSync(file, torn.slice(40))
    await f.waitFor(entryText('written in two halves'))
    await append(file, 'and one more')
    await f.waitFor(entryText('and one more'))
    const shown = entries(expectValidFollowLines(f)).map((d) => d.entry.text ?? d.entry.type)
    expect(shown).toEqual(['Tool finished.', 'custom', 'added by a rewrite', 'written in two halves', 'and one more'])
    expect(f.stderr()).toBe('')
  })

  it('a key that does not exist yet is waited for (a note on stderr), then followed from its first entry; --until-idle ends with exit 0', async () => {
    const a = await setup({fixture: TWO_AGENTS})
    const f = follow(['sessions', 'history', 'agent:main:later', '--follow', '--json', '--until-idle', '4s', '--state-dir', a.state], a.env)
    await expect.poll(() => f.stderr(), {timeout: 20_000}).toContain('Waiting for agent:main:later')
    const r = await a.run(['agent', '-m', 'hello later', '--session-key', 'agent:main:later', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(await f.exited).toEqual({code: 0, signal: null})
    const docs = expectValidFollowLines(f)
    const id = indexOf(a.state)['agent:main:later'].sessionId
    expect(docs[0]).toMatchObject({kind: 'session', event: 'new', key: 'agent:main:later', sessionId: id, previousSessionId: null})
    expect(entries(docs).map((d) => d.entry.id)).toEqual(fileIds(transcript(a.state, id)))
    expect(entries(docs).find((d) => d.entry.role === 'user')?.entry.text).toBe('hello later')
  })

  it('--all: the new entries of every session of every agent, each line labelled with its key; a key that appears is followed from its start', async () => {
    const a = await setup({fixture: TWO_AGENTS})
    const f = follow(['sessions', 'history', '--follow', '--all', '--json', '--state-dir', a.state], a.env)
    // Nothing of the past is printed: the first line is what the first turn wrote.
    await expect.poll(() => f.stderr(), {timeout: 20_000}).toContain('Following 2 sessions in 2 stores')
    expect(f.lines).toEqual([])
    for (const [key, text] of [['agent:work:main', 'to work'], ['agent:main:main', 'to main'], ['agent:main:fresh', 'to a new key']]) {
      const r = await a.run(['agent', '-m', text, '--session-key', key, '--json'])
      expect(r.code, r.stderr).toBe(0)
    }
    await f.waitFor(entryText('to a new key'))
    const freshId = indexOf(a.state)['agent:main:fresh'].sessionId
    await f.waitFor(isJson((d) => d.kind === 'entry' && d.entry.id === fileIds(transcript(a.state, freshId)).at(-1)))
    const docs = expectValidFollowLines(f)
    const said = entries(docs).filter((d) => d.entry.role === 'user').map((d) => [d.key, d.agentId, d.entry.text])
    expect(said).toEqual([['agent:work:main', 'work', 'to work'], ['agent:main:main', 'main', 'to main'], ['agent:main:fresh', 'main', 'to a new key']])
    expect(docs.find((d) => d.kind === 'session')).toMatchObject({event: 'new', key: 'agent:main:fresh', sessionId: freshId})
    // Per key, exactly the entries each turn added.
    for (const key of ['agent:main:main', 'agent:main:fresh']) {
      const ids = fileIds(indexOf(a.state)[key].sessionFile ?? transcript(a.state, freshId))
      const got = entries(docs).filter((d) => d.key === key).map((d) => d.entry.id)
      expect(got).toEqual(ids.slice(ids.length - got.length))
    }
    expect(await f.stop('SIGTERM')).toEqual({code: 143, signal: null})
  })

  it('human output: history\'s header and tail, each new entry as history renders it, the reset as a boundary line; --all labels lines with the key', async () => {
    const a = await setup({fixture: TWO_AGENTS})
    const history = await a.run(['sessions', 'history', 'main', '--limit', '2'])
    const f = follow(['sessions', 'history', 'main', '--follow', '--limit', '2', '--state-dir', a.state], a.env)
    const all = follow(['sessions', 'history', '--follow', '--agent', 'main', '--state-dir', a.state], a.env)
    await f.waitFor((t) => t.includes('Tool finished.'))
    // --all prints nothing of the past: it says on stderr once it watches, and what lands after that is printed.
    await expect.poll(() => all.stderr(), {timeout: 20_000}).toBe('Following 1 session in 1 store: new entries appear as they land (Ctrl-C to stop).\n')
    await append(transcript(a.state), 'a line of its own')
    await f.waitFor((t) => t.endsWith('user: a line of its own'))
    const reset = json(await a.run(['sessions', 'reset', 'main', '--json']))
    await f.waitFor((t) => t.includes('reset: session'))
    await all.waitFor((t) => t.includes('reset: session'))
    await f.stop()
    await all.stop()
    const text = f.lines.map((l) => l.text).join('\n')
    expect(text.startsWith(history.stdout.trimEnd())).toBe(true)
    expect(text.slice(history.stdout.trimEnd().length).split('\n').slice(1).map((l) => l.replace(/^\[[^\]]+\] /, ''))).toEqual([
      'user: a line of its own',
      `\u2550\u2550\u2550\u2550 reset: session ${reset.sessionId} (was ${MAIN}) \u2550\u2550\u2550\u2550`,
    ])
    expect(all.lines.map((l) => l.text.replace(/\[[^\]]+\] /, ''))).toEqual([
      'agent:main:main user: a line of its own',
      `agent:main:main \u2550\u2550\u2550\u2550 reset: session ${reset.sessionId} (was ${MAIN}) \u2550\u2550\u2550\u2550`,
    ])
  })

  it('what it refuses, in one line each (exit 2): flags that need --follow, --all with a session or --limit, --include-archived, the fleet replica, an archived session', async () => {
    const a = await setup({fixture: 'openclaw-2026.4.27-reset-twice'})
    const err = async (...args: string[]) => jsonError(await runCli(['sessions', 'history', ...args, '--json', '--state-dir', a.state], {env: a.env}))
    expect(await err('main', '--until-idle', '5s')).toMatchObject({code: 'E_FLAG_CONFLICT', exitCode: 2, message: '--until-idle goes with --follow: add --follow'})
    expect(await err('main', '--all')).toMatchObject({code: 'E_FLAG_CONFLICT', message: '--all goes with --follow: add --follow'})
    expect((await err('main', '--follow', '--all')).message).toBe('--follow does not take a session: --all follows every session: give no session, or drop --all.')
    expect((await err('--follow', '--all', '--limit', '5')).message).toMatch(/^--follow does not take --limit: /)
    expect((await err('main', '--follow', '--include-archived')).message).toMatch(/^--follow does not take --include-archived: /)
    expect((await err('main', '--follow', '--until-idle', 'soon')).code).toBe('E_BAD_UNTIL_IDLE')
    expect((await err('--follow')).code).toBe('E_MISSING_SESSION')
    const fleet = jsonError(await runCli(['sessions', 'history', 'main', '--follow', '--json', '--store-url', 'postgres://nobody@127.0.0.1:1/fleet'], {env: a.env}))
    expect(fleet).toMatchObject({code: 'E_FLAG_CONFLICT', message: '--follow does not take --store-url: the fleet replica changes only when a host syncs: run it on the host.'})
    // The first session of the fixture's key is an archive now.
    const first = json(await a.run(['sessions', 'lineage', 'main', '--json'])).sessions[0].sessionId
    const archived = await runCli(['sessions', 'history', first, '--follow', '--json', '--state-dir', a.state], {env: a.env})
    expect(archived.stdout.trim().split('\n')).toHaveLength(1) // one line, like every line of a follow
    expect(jsonError(archived)).toMatchObject({code: 'E_FOLLOW_ARCHIVED', exitCode: 2, suggestions: ['follow its key instead: clawkit sessions history agent:main:main --follow']})
  })
})
