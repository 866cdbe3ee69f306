// The HTML export opened in a real headless Chromium (Debian's package) over the DevTools protocol: every message is
// visible in the rendered page, the page makes no network request (an injected <img> of a local URL included), an
// injected <script> does not run, the themes follow prefers-color-scheme, and it prints. Skips without chromium
// locally; fails in CI (CI=1), where .ci/run installs it.
import fs from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {SessionsExportResult} from '../../../src/commands/sessions/export.js'
import {json, tempDir} from '../../support/cli.js'
import {type Browser, launchChromium, SKIP_BROWSER} from '../../support/chromium.js'
import {BOT_TOKEN, exportState, messageTexts, transcriptOfId} from '../../support/reset-twice.js'

describe.skipIf(SKIP_BROWSER)('sessions export --format html in headless Chromium', () => {
  let browser: Browser
  let session: string
  let file: string
  let url: string
  let exported: SessionsExportResult
  let texts: string[]

  beforeAll(async () => {
    const {a, ids} = await exportState()
    try {
      file = path.join(tempDir(), 'chat.html')
      const r = await a.run(['sessions', 'export', 'main', '--include-archived', '--format', 'html', '--out', file, '--json'])
      expect(r.code, r.stderr).toBe(0)
      exported = json<SessionsExportResult>(r)
      texts = ids.flatMap((id) => messageTexts(transcriptOfId(a.state, id), ['user', 'assistant']))
    } finally {
      await a.mock.close()
    }
    url = pathToFileURL(file).href
    browser = launchChromium()
    const {targetId} = await browser.send('Target.createTarget', {url: 'about:blank'})
    ;({sessionId: session} = await browser.send('Target.attachToTarget', {targetId, flatten: true}))
    for (const d of ['Network.enable', 'Page.enable', 'Runtime.enable']) await browser.send(d, {}, session)
    await browser.send('Page.navigate', {url}, session)
    await browser.waitFor('Page.loadEventFired', session)
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
  })

  /** The expression's value after the next frame (an emulated media change is applied at the next style update). */
  const evaluate = async (expression: string) => {
    const r = await browser.send('Runtime.evaluate', {expression: `new Promise((r) => requestAnimationFrame(() => r(${expression})))`, awaitPromise: true, returnByValue: true}, session)
    if (r.exceptionDetails) throw new Error(JSON.stringify(r.exceptionDetails))
    return r.result.value
  }

  it('shows every message of the three sessions: each text is in the rendered (visible) text, one section per message', async () => {
    const visible: string = await evaluate('document.body.innerText')
    const squash = (s: string) => s.replace(/\s+/g, ' ').trim()
    const page = squash(visible)
    expect(texts.length).toBeGreaterThan(6)
    for (const t of texts) expect(page).toContain(squash(t.split(BOT_TOKEN).join('<redacted>')))
    expect(await evaluate("document.querySelectorAll('section.msg').length")).toBe(exported.messages)
    expect(await evaluate("document.querySelectorAll('.boundary').length")).toBe(3)
  })

  it('an injected <script> is text, never run; the injected <img> is no element; no request leaves the page', async () => {
    expect(await evaluate('typeof window.__pwned')).toBe('undefined')
    expect(await evaluate('document.scripts.length')).toBe(0)
    expect(await evaluate('document.images.length')).toBe(0)
    expect(await evaluate('document.body.innerText')).toContain('<script>window.__pwned = 1</script>')
    const requests = browser.events.filter((e) => e.method === 'Network.requestWillBeSent' && e.sessionId === session).map((e) => e.params.request.url)
    expect(requests).toEqual([url])
  })

  it('follows prefers-color-scheme (light and dark backgrounds), tool calls collapse in <details> on screen and open in print, and it prints to PDF', async () => {
    const bg = async (scheme: string) => {
      await browser.send('Emulation.setEmulatedMedia', {features: [{name: 'prefers-color-scheme', value: scheme}]}, session)
      return evaluate('getComputedStyle(document.body).backgroundColor')
    }
    expect(await bg('light')).toBe('rgb(255, 255, 255)')
    expect(await bg('dark')).toBe('rgb(22, 22, 24)')
    expect(await evaluate("document.querySelectorAll('details.call').length")).toBeGreaterThan(0)
    expect(await evaluate("[...document.querySelectorAll('details')].every((d) => !d.open)")).toBe(true)
    const callShown = "document.querySelector('details.call pre').checkVisibility()"
    expect(await evaluate(callShown)).toBe(false)
    // On paper nothing can be clicked open: collapsed blocks are laid out in full.
    await browser.send('Emulation.setEmulatedMedia', {media: 'print'}, session)
    expect(await evaluate(callShown)).toBe(true)
    await browser.send('Emulation.setEmulatedMedia', {media: ''}, session)
    const pdf = await browser.send('Page.printToPDF', {}, session)
    expect(Buffer.from(pdf.data, 'base64').subarray(0, 5).toString()).toBe('%PDF-')
    expect(fs.statSync(file).size).toBe(exported.bytes)
  })
})
