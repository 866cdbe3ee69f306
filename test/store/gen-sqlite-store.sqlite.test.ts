// scripts/gen-sqlite-store.js (the benchmark's generator) writes rows OpenClaw 2026.9.6 accepts: checked here on a small
// store against the spec's reader invariants (3.1) and projection rule (3.7), and the JSON-era twin lists the same rows.
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {expect, it} from 'vitest'

import {openAgentDb} from '../../src/store/sqlite/driver.js'
import {baseEnv, json, ROOT, runCli, tempDir} from '../support/cli.js'
import {describeSqlite} from '../support/sqlite.js'

describeSqlite('gen-sqlite-store.js', () => {
  it('40 sessions and a 100-event main session: valid rows, a current projection, and the same sessions in the JSON era', async () => {
    const dir = tempDir()
    const sq = path.join(dir, 'sq')
    const js = path.join(dir, 'js')
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'gen-sqlite-store.js'), '--out', sq, '--json-out', js, '--sessions', '40', '--big-events', '100'], {encoding: 'utf8'})
    expect(r.status, r.stderr).toBe(0)

    const {db} = openAgentDb(path.join(sq, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), {agentId: 'main'})
    try {
      const nodes = db.prepare('SELECT session_key, current_session_id, entry_json, entry_valid, updated_at FROM session_nodes').all()
      expect(nodes).toHaveLength(40)
      for (const n of nodes) {
        const entry = JSON.parse(String(n.entry_json))
        expect({valid: n.entry_valid, id: entry.sessionId, at: entry.updatedAt}).toEqual({valid: 1, id: n.current_session_id, at: n.updated_at})
        expect(db.prepare('SELECT count(*) AS c FROM session_windows WHERE session_id = ? AND session_key = ?').get(n.current_session_id, n.session_key)?.c).toBe(1)
        const st = db.prepare('SELECT * FROM session_transcript_index_state WHERE session_id = ?').get(n.current_session_id)!
        const last = db.prepare('SELECT max(seq) AS seq, count(*) AS c FROM transcript_events WHERE session_id = ?').get(n.current_session_id)!
        const leaf = db.prepare('SELECT event_id FROM transcript_event_identities WHERE session_id = ? AND seq = ?').get(n.current_session_id, last.seq)!
        const active = db.prepare('SELECT count(*) AS c, count(message_position) AS m FROM session_transcript_active_events WHERE session_id = ?').get(n.current_session_id)!
        // The forward index covers every event after the header, so OpenClaw's next append extends it (no rebuild).
        expect({seq: st.indexed_seq, leaf: st.leaf_event_id, rebuild: st.needs_rebuild, events: st.active_event_count, messages: st.active_message_count}).toEqual({
          seq: last.seq,
          leaf: leaf.event_id,
          rebuild: 0,
          events: active.c,
          messages: active.m,
        })
        expect(active.c).toBe(Number(last.c) - 1)
      }
      expect(db.prepare("SELECT count(*) AS c FROM transcript_events WHERE session_id = (SELECT current_session_id FROM session_nodes WHERE session_key = 'agent:main:main')").get()?.c).toBe(100)
    } finally {
      db.close()
    }

    const list = json(await runCli(['sessions', 'list', '--json', '--state-dir', js], {env: baseEnv(tempDir())}))
    expect(list.count).toBe(40)
    expect(list.sessions[0].key).toBe('agent:main:main')
    const lines = fs.readFileSync(path.join(js, 'agents', 'main', 'sessions', `${list.sessions[0].sessionId}.jsonl`), 'utf8').trim().split('\n')
    expect(lines).toHaveLength(100)
    expect(JSON.parse(lines[0])).toMatchObject({type: 'session', id: list.sessions[0].sessionId})
  })

  it('refuses a non-empty output dir and leaves it alone', () => {
    const out = tempDir()
    fs.writeFileSync(path.join(out, 'keep'), 'x')
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'gen-sqlite-store.js'), '--out', out, '--sessions', '5', '--big-events', '30'], {encoding: 'utf8'})
    expect(r.status).toBe(1)
    expect(r.stderr).toBe(`gen-sqlite-store: ${out} is not empty\n`)
    expect(fs.readdirSync(out)).toEqual(['keep'])
  })
})
