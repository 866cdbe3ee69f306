// Shared by every interop file that runs a real OpenClaw beside clawkit (2026.4.27 and 2026.9.6 alike): the mock
// Messages API as a child process both CLIs call, and one copy of OpenClaw's plugin runtime for every state dir.
import {type ChildProcess, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {baseEnv, ROOT} from '../../support/cli.js'

/**
 * The environment of a real OpenClaw child: the tests' own (baseEnv, with `extra` as it takes it), the state dir, and the
 * caller's NODE_EXTRA_CA_CERTS back. baseEnv drops that for clawkit's children, since Node 20 parses the file at every
 * start; OpenClaw runs on Node 24, which reads it at its first TLS connection only, and needs it when it installs its
 * plugins' runtime deps from npm behind a proxy with a certificate of its own (their install scripts download over
 * HTTPS with Node's certificates: without it they stalled, scripts/interop-warm.mjs).
 */
export function openclawEnv(home: string, state: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const ca = process.env.NODE_EXTRA_CA_CERTS
  return {...baseEnv(home, extra), OPENCLAW_STATE_DIR: state, NO_COLOR: '1', ...(ca ? {NODE_EXTRA_CA_CERTS: ca} : {})}
}

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
