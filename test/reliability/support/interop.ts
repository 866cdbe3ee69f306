// Shared by every interop file that runs a real OpenClaw beside clawkit (2026.4.27 and 2026.9.6 alike): the mock
// Messages API as a child process both CLIs call, and one copy of OpenClaw's plugin runtime for every state dir.
import {type ChildProcess, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {ROOT} from '../../support/cli.js'

/** support/mock-anthropic.mjs as a child process: its port, and every request body appended to `requests`. */
export async function startMockProcess(requests: string): Promise<{mock: ChildProcess; port: number}> {
  const mock = spawn(process.execPath, [path.join(ROOT, 'test', 'reliability', 'support', 'mock-anthropic.mjs'), requests], {stdio: ['ignore', 'pipe', 'inherit']})
  const port = await new Promise<number>((resolve) => mock.stdout!.once('data', (d) => resolve(Number(String(d).trim()))))
  return {mock, port}
}

/**
 * OpenClaw unpacks ~1.4 GB of plugin runtime into every state dir on its first agent run; share one copy. The cache is
 * CLAWKIT_INTEROP_CACHE (scripts/interop.sh sets it), else the interop cache the Node 24 of CLAWKIT_INTEROP_NODE was
 * installed into, when it is there; without either every state dir unpacks its own.
 */
export function shareCachedPluginRuntime(state: string): void {
  const node = process.env.CLAWKIT_INTEROP_NODE
  const cache = process.env.CLAWKIT_INTEROP_CACHE ?? (node ? path.resolve(node, '../../../../..') : undefined)
  if (!cache || !fs.existsSync(cache)) return
  fs.mkdirSync(path.join(cache, 'plugin-runtime-deps'), {recursive: true})
  fs.symlinkSync(path.join(cache, 'plugin-runtime-deps'), path.join(state, 'plugin-runtime-deps'))
}
