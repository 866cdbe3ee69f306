// Test support: a headless Debian Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: fd 3
// in, fd 4 out, NUL-separated JSON), with no puppeteer and no browser download. Tests that need it skip when chromium
// is not installed, except in CI (CI=1), where they fail: .ci/run installs it.
import {spawn, spawnSync} from 'node:child_process'
import type {Readable, Writable} from 'node:stream'

import {tempDir} from './cli.js'

export const CHROMIUM = process.env.CHROMIUM ?? 'chromium'
export const HAVE_CHROMIUM = spawnSync('sh', ['-c', `command -v ${CHROMIUM}`]).status === 0
/** Skip without chromium on a developer's machine; in CI a missing browser is a failure. */
export const SKIP_BROWSER = !HAVE_CHROMIUM && !process.env.CI

export interface CdpEvent {
  method: string
  params: any
  sessionId?: string
}

export interface Browser {
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<any>
  /** Every event received so far. */
  events: CdpEvent[]
  waitFor(method: string, sessionId?: string, timeoutMs?: number): Promise<CdpEvent>
  close(): Promise<void>
}

export function launchChromium(): Browser {
  if (!HAVE_CHROMIUM) throw new Error(`${CHROMIUM} is not installed (apt-get install -y chromium); CI installs it in .ci/run`)
  const child = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-extensions',
      // Any host name resolves to nothing: a page that tried to fetch by name would fail, and the Network events show it.
      '--host-resolver-rules=MAP * ~NOTFOUND',
      `--user-data-dir=${tempDir('clawkit-chromium-')}`,
      '--remote-debugging-pipe',
      'about:blank',
    ],
    {stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe']},
  )
  const toBrowser = child.stdio[3] as Writable
  const fromBrowser = child.stdio[4] as Readable
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d))
  let nextId = 1
  const pending = new Map<number, {resolve: (v: any) => void; reject: (e: Error) => void}>()
  const events: CdpEvent[] = []
  const waiters: {method: string; sessionId?: string; resolve: (e: CdpEvent) => void}[] = []
  let buf = ''
  fromBrowser.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk
    let at: number
    while ((at = buf.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buf.slice(0, at))
      buf = buf.slice(at + 1)
      if (msg.id !== undefined) {
        const p = pending.get(msg.id)
        pending.delete(msg.id)
        if (msg.error) p?.reject(new Error(`${msg.error.message} (${JSON.stringify(msg.error)})`))
        else p?.resolve(msg.result)
      } else {
        const ev: CdpEvent = {method: msg.method, params: msg.params, sessionId: msg.sessionId}
        events.push(ev)
        for (const w of [...waiters]) {
          if (w.method === ev.method && (w.sessionId === undefined || w.sessionId === ev.sessionId)) {
            waiters.splice(waiters.indexOf(w), 1)
            w.resolve(ev)
          }
        }
      }
    }
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  child.on('exit', () => {
    for (const p of pending.values()) p.reject(new Error(`chromium exited: ${stderr.slice(-2000)}`))
    pending.clear()
  })
  return {
    events,
    send(method, params = {}, sessionId) {
      const id = nextId++
      return new Promise((resolve, reject) => {
        pending.set(id, {resolve, reject})
        toBrowser.write(`${JSON.stringify({id, method, params, ...(sessionId ? {sessionId} : {})})}\0`)
      })
    },
    waitFor(method, sessionId, timeoutMs = 20_000) {
      const seen = events.find((e) => e.method === method && (sessionId === undefined || e.sessionId === sessionId))
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${method} within ${timeoutMs} ms`)), timeoutMs)
        waiters.push({method, sessionId, resolve: (e) => (clearTimeout(timer), resolve(e))})
      })
    },
    async close() {
      child.kill('SIGTERM')
      await exited
    },
  }
}
