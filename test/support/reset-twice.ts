// Test support: a JSON-era state dir whose main session was reset twice by clawkit's own `sessions reset`, with an
// `agent -m` turn (against the mock API) after each reset. Real OpenClaw data with two resets is not at hand; clawkit
// writes OpenClaw's archive names and headers (test/store/reset-rounds.test.ts), so archives are found the same way.
import fs from 'node:fs'
import path from 'node:path'

import {expect} from 'vitest'

import {type AgentEnv, providerConfig, setup, store, transcriptLines} from '../e2e/agent/setup.js'
import {json, TWO_AGENTS} from './cli.js'

export const MAIN = 'agent:main:main'

/** The user's words of the two turns after the resets (`words[i]` goes to session i + 1). */
export async function resetTwice(e: AgentEnv, words: string[] = ['second session words', 'third session words']): Promise<string[]> {
  const got = [store(e.state)[MAIN].sessionId as string]
  for (const w of words) {
    const r = await e.run(['sessions', 'reset', 'main', '--json'])
    expect(r.code, r.stderr).toBe(0)
    got.push(json(r).sessionId)
    const turn = await e.run(['agent', '-m', w])
    expect(turn.code, turn.stderr).toBe(0)
  }
  return got
}

/** The transcript file of a session id in main's sessions dir: live or archived. */
export function transcriptOfId(state: string, id: string): string {
  const dir = path.join(state, 'agents', 'main', 'sessions')
  const name = fs.readdirSync(dir).find((n) => n.startsWith(`${id}.jsonl`) && !n.endsWith('.lock'))
  if (!name) throw new Error(`no transcript for ${id}`)
  return path.join(dir, name)
}

/** The text of every message with text (user, assistant, tool results), in file order. */
export function messageTexts(file: string, roles?: string[]): string[] {
  const out: string[] = []
  for (const l of transcriptLines(file)) {
    if (l.type !== 'message' || (roles && !roles.includes(l.message.role))) continue
    const c = l.message.content
    const t = typeof c === 'string' ? c : c.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n')
    if (t) out.push(t)
  }
  return out
}

export const BOT_TOKEN = '7712345678:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
export const KEY_SHAPED = 'sk-ant-api03-Zx9Yq8Wv7Ut6Sr5Qp4On3Ml2Kj1'
export const SCRIPT = '<script>window.__pwned = 1</script><img src="http://127.0.0.1:9/pixel.png">'
/** The two turns of the export state: a config token and a key-shaped string, then an injected script and image. */
export const EXPORT_WORDS = [`the bot token is ${BOT_TOKEN} and the key ${KEY_SHAPED}`, `try this: ${SCRIPT} & "quotes"`]

/** The two-agents fixture with a Telegram bot token in its config, main reset twice with EXPORT_WORDS as the turns. */
export async function exportState(): Promise<{a: AgentEnv; ids: string[]}> {
  const e = await setup({fixture: TWO_AGENTS, config: (url) => providerConfig(url, {}, {channels: {telegram: {botToken: BOT_TOKEN}}})})
  return {a: e, ids: await resetTwice(e, EXPORT_WORDS)}
}
