// Shared setup for message tests: a fixture state dir, the fake channel servers, and checks over the files.
import fs from 'node:fs'
import path from 'node:path'

import JSON5 from 'json5'

import {baseEnv, copyFixture, tempDir, TWO_AGENTS} from '../../support/cli.js'
import {snapshot} from '../../support/state-files.js'
import {channelEnv, DISCORD_TOKEN, type FakeChannels, SLACK_TOKEN, TELEGRAM_TOKEN} from '../../support/fake-channels.js'

export const TOKENS = [TELEGRAM_TOKEN, DISCORD_TOKEN, SLACK_TOKEN]

export function setup(fake: FakeChannels, opts: {config?: Record<string, unknown>; env?: Record<string, string | undefined>} = {}) {
  const state = copyFixture(TWO_AGENTS)
  if (opts.config) {
    const cfgFile = path.join(state, 'openclaw.json')
    fs.writeFileSync(cfgFile, JSON.stringify({...readJson5(cfgFile), ...opts.config}, null, 2))
  }
  const home = tempDir()
  const env = baseEnv(home, {...channelEnv(fake), ...opts.env})
  return {state, env, home}
}

function readJson5(file: string): Record<string, unknown> {
  return JSON5.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
}


export function assertNoSecrets(texts: string[]): void {
  for (const t of texts) for (const tok of TOKENS) if (t.includes(tok)) throw new Error(`secret leaked: ${tok.slice(0, 6)}… in ${t.slice(0, 200)}`)
}

export function allFilesText(dir: string): string[] {
  return [...snapshot(dir)].filter(([, n]) => n.kind === 'file').map(([rel]) => fs.readFileSync(path.join(dir, rel)).toString('latin1'))
}

export {keyTranscriptLines as transcriptLines, readIndex as store, snapshot} from '../../support/state-files.js'

export function mirrors(lines: any[]): any[] {
  return lines.filter((l) => l.type === 'message' && l.message?.model === 'delivery-mirror')
}

export {tempDir}
