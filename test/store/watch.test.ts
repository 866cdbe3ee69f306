// The store watcher through real inotify: a sessions dir that another process creates, level by level, is watched once it
// appears, so a write inside it wakes the follower (a key followed before OpenClaw has made its agent's directories).
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {FileSessionStore} from '../../src/store/file/store.js'
import {type StoreWatcher, watchStore} from '../../src/store/watch.js'

const dirs: string[] = []
const watchers: StoreWatcher[] = []
afterEach(() => {
  for (const w of watchers.splice(0)) w.close()
  for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true})
})

/** Another process makes agents/, agents/main/ and sessions/ with `gapMs` between them, as OpenClaw's first turn does. */
const makeLevels = (state: string, gapMs: number) =>
  new Promise<void>((resolve, reject) => {
    const script = `
      const fs = require('node:fs'), path = require('node:path')
      const levels = ['agents', 'agents/main', 'agents/main/sessions'].map((d) => path.join(${JSON.stringify(state)}, d))
      const wait = (ms) => { const end = Date.now() + ms; while (Date.now() < end); }
      for (const d of levels) { fs.mkdirSync(d); wait(${gapMs}) }
      fs.writeFileSync(path.join(levels[2], 'sessions.json'), '{}')`
    const child = spawn(process.execPath, ['-e', script], {stdio: 'inherit'})
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mkdir child exited ${code}`))))
  })

describe('watchStore', () => {
  it.each([0, 0, 0, 1, 1, 2, 3, 5, 10, 20])('sees a write in a sessions dir another process created level by level (gap %i ms)', async (gapMs) => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-watch-'))
    dirs.push(state)
    const index = path.join(state, 'agents', 'main', 'sessions', 'sessions.json')
    const seen: string[] = []
    watchers.push(watchStore(new FileSessionStore({agentId: 'main', path: index}), (c) => seen.push(...(c.paths ?? ['*']))))
    await makeLevels(state, gapMs)
    // Whatever the parent watch saw, a later write inside the new directory must be named by its own notification.
    seen.length = 0
    await expect.poll(() => {
      fs.writeFileSync(index, `{"n": ${Date.now()}}`)
      return seen.includes(index)
    }, {timeout: 10_000, interval: 100}).toBe(true)
  })

  it('a sessions dir made between the look and the watch (no notification for it) is still watched: the look is repeated after arming', async () => {
    // The timing the test above can only hope to hit, made certain: the directories appear inside the gap, once.
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'clawkit-watch-'))
    dirs.push(state)
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    const index = path.join(sessions, 'sessions.json')
    const seen: string[] = []
    let made = false
    const afterLook = () => {
      if (made) return
      made = true
      fs.mkdirSync(sessions, {recursive: true})
    }
    watchers.push(watchStore(new FileSessionStore({agentId: 'main', path: index}), (c) => seen.push(...(c.paths ?? ['*'])), {afterLook}))
    expect(made).toBe(true)
    await expect.poll(() => {
      fs.writeFileSync(index, `{"n": ${Date.now()}}`)
      return seen.includes(index)
    }, {timeout: 5_000, interval: 100}).toBe(true)
  })
})
