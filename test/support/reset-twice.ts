// Test support: a JSON-era state dir whose main session was reset twice by clawkit's own `sessions reset`, with an
// `agent -m` turn (against the mock API) after each reset. Real OpenClaw data with two resets is not at hand; clawkit
// writes OpenClaw's archive names and headers (test/store/reset-rounds.test.ts), so archives are found the same way.
import fs from 'node:fs'
import path from 'node:path'

import {expect} from 'vitest'

import {type AgentEnv, store, transcriptLines} from '../agent/setup.js'
import {json} from './cli.js'

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
