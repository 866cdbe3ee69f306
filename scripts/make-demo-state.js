#!/usr/bin/env node
// Builds examples/demo-state: a small OpenClaw state dir written by clawkit's own store library (run `npm run build`
// first). The result is committed so a newcomer can run `./bin/run.js sessions list --state-dir examples/demo-state`.
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {appendEntries, FileSessionStore, makeHeader} from '../dist/store/index.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const out = path.resolve(process.argv[2] ?? path.join(root, 'examples', 'demo-state'))
fs.rmSync(out, {recursive: true, force: true})
fs.mkdirSync(out, {recursive: true, mode: 0o700})

// A fixed clock keeps the committed demo reproducible; ages in `sessions list` grow from this date.
let clock = Date.parse('2026-11-20T09:00:00.000Z')
const tick = (ms = 1500) => new Date((clock += ms))

fs.writeFileSync(
  path.join(out, 'openclaw.json'),
  `{
  // Demo config (JSON5, as OpenClaw writes it). The provider points at a local stand-in; no real key is stored.
  agents: { defaults: { model: { primary: "anthropic/claude-sonnet-4-5" } }, list: [ { id: "main", default: true }, { id: "work" } ] },
  models: { providers: { anthropic: { api: "anthropic-messages", baseUrl: "http://127.0.0.1:18089", models: [ { id: "claude-sonnet-4-5", name: "Claude Sonnet 4.5", contextWindow: 200000, maxTokens: 8192, cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } } ] } } },
}
`,
  {mode: 0o600},
)

const usage = (input, output) => ({input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: {input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0, total: input * 3e-6 + output * 15e-6}})

async function session(agentId, key, sessionId, turns, extra = {}) {
  const dir = path.join(out, 'agents', agentId, 'sessions')
  const file = path.join(dir, `${sessionId}.jsonl`)
  const start = tick()
  const items = [
    {type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4-5'},
    {type: 'thinking_level_change', thinkingLevel: 'off'},
  ]
  let last
  for (const [user, reply, tool] of turns) {
    items.push({type: 'message', message: {role: 'user', content: [{type: 'text', text: user}], timestamp: tick().getTime()}})
    if (tool) {
      items.push({type: 'message', message: {role: 'assistant', content: [{type: 'toolCall', id: `toolu_${sessionId.slice(0, 8)}${items.length}`, name: tool.name, arguments: tool.args}], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: usage(1800, 40), stopReason: 'toolUse', timestamp: tick().getTime()}})
      items.push({type: 'message', message: {role: 'toolResult', toolCallId: `toolu_${sessionId.slice(0, 8)}${items.length - 1}`, toolName: tool.name, content: [{type: 'text', text: tool.result}], isError: false, timestamp: tick().getTime()}})
    }
    last = usage(2100 + items.length * 40, 60)
    items.push({type: 'message', message: {role: 'assistant', content: [{type: 'text', text: reply}], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: last, stopReason: 'stop', timestamp: tick().getTime()}})
  }
  await appendEntries(file, items, {header: makeHeader(sessionId, `/home/demo/.openclaw/${agentId === 'main' ? 'workspace' : `workspace-${agentId}`}`, start), now: () => tick(5)})
  const store = new FileSessionStore({agentId, path: path.join(dir, 'sessions.json')})
  await store.update((data) => {
    data[key] = {
      sessionId,
      updatedAt: clock,
      sessionStartedAt: start.getTime(),
      // Relative, which OpenClaw resolves inside the sessions dir: the committed demo works from any checkout path.
      sessionFile: path.basename(file),
      chatType: 'direct',
      modelProvider: 'anthropic',
      model: 'claude-sonnet-4-5',
      contextTokens: 200000,
      inputTokens: last.input,
      outputTokens: last.output,
      totalTokens: last.input,
      totalTokensFresh: true,
      cacheRead: 0,
      cacheWrite: 0,
      estimatedCostUsd: Number(last.cost.total.toFixed(6)),
      abortedLastRun: false,
      compactionCount: 0,
      ...extra,
    }
  })
}

await session('main', 'agent:main:main', '6f1d2c3b-5a4e-4f70-9b1c-2d3e4f5a6b7c', [
  ['What is on my calendar today?', 'You have a standup at 10:00 and a dentist appointment at 15:30.'],
  ['Read the notes file for me.', 'The notes say: "ship clawkit 0.1, then write the doctor".', {name: 'read', args: {path: 'notes.md'}, result: 'ship clawkit 0.1, then write the doctor'}],
])
await session('main', 'agent:main:telegram:group:-1001234567890', '8a9b0c1d-2e3f-4a5b-8c6d-7e8f9a0b1c2d', [['@bot summarize the thread', 'Three people agreed to move the release to Friday.']], {
  chatType: 'group',
  channel: 'telegram',
  groupId: '-1001234567890',
  subject: 'Release crew',
  displayName: 'telegram:g-release-crew',
  deliveryContext: {channel: 'telegram', to: 'telegram:-1001234567890', accountId: 'default'},
  lastChannel: 'telegram',
  lastTo: 'telegram:-1001234567890',
  lastAccountId: 'default',
})
await session('work', 'agent:work:main', '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', [['Draft a status update for the team.', 'Status: store library done, agent command in review, doctor next.']], {thinkingLevel: 'low'})
console.log(`demo state written to ${path.relative(process.cwd(), out) || out}`)
