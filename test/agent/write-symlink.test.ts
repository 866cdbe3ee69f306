// The write tool against symlinks planted in the workspace: dangling links and linked directories pointing out.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {runTool} from '../../src/agent/tools.js'
import {tempDir} from '../support/cli.js'

const policy = {write: true, exec: false}

function dirs(): {ws: string; outside: string} {
  const base = tempDir()
  const ws = path.join(base, 'ws')
  const outside = path.join(base, 'outside')
  fs.mkdirSync(ws)
  fs.mkdirSync(outside)
  return {ws, outside}
}

describe('write tool and symlinks', () => {
  it('dangling symlink ws/notes.txt -> outside/pwned.txt: refused, nothing created outside', async () => {
    const {ws, outside} = dirs()
    fs.symlinkSync(path.join(outside, 'pwned.txt'), path.join(ws, 'notes.txt'))
    const out = await runTool('write', {path: 'notes.txt', content: 'owned'}, {workspaceDir: ws}, policy)
    expect(out.isError).toBe(true)
    expect(out.text).toContain('outside the workspace')
    expect(fs.existsSync(path.join(outside, 'pwned.txt'))).toBe(false)
    expect(fs.lstatSync(path.join(ws, 'notes.txt')).isSymbolicLink()).toBe(true)
  })

  it('dangling relative symlink through a missing directory (ws/d -> ../outside/new): refused, no directory created outside', async () => {
    const {ws, outside} = dirs()
    fs.symlinkSync('../outside/new', path.join(ws, 'd'))
    const out = await runTool('write', {path: 'd/x.txt', content: 'owned'}, {workspaceDir: ws}, policy)
    expect(out.isError).toBe(true)
    expect(out.text).toContain('outside the workspace')
    expect(fs.readdirSync(outside)).toEqual([])
  })

  it('a dangling symlink whose would-be target is inside the workspace is written through to that target', async () => {
    const {ws} = dirs()
    fs.symlinkSync('sub/real.txt', path.join(ws, 'alias.txt'))
    const out = await runTool('write', {path: 'alias.txt', content: 'inside'}, {workspaceDir: ws}, policy)
    expect(out, out.text).toMatchObject({isError: false})
    expect(fs.readFileSync(path.join(ws, 'sub/real.txt'), 'utf8')).toBe('inside')
  })

  it('a symlink to an existing file outside is refused and the outside file is unchanged', async () => {
    const {ws, outside} = dirs()
    fs.writeFileSync(path.join(outside, 'keep.txt'), 'original')
    fs.symlinkSync(path.join(outside, 'keep.txt'), path.join(ws, 'keep.txt'))
    const out = await runTool('write', {path: 'keep.txt', content: 'owned'}, {workspaceDir: ws}, policy)
    expect(out.isError).toBe(true)
    expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('original')
  })
})
