// The idempotency scan streams the transcript and matches only a message's own idempotencyKey field.
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {findIdempotencyKey} from '../../src/store/file/idempotency.js'
import {tempDir} from '../support/cli.js'

describe('findIdempotencyKey', () => {
  it('finds the entry whose message carries the key, across CRLF lines and a multi-megabyte line before it', async () => {
    const file = path.join(tempDir(), 't.jsonl')
    const lines = [
      JSON.stringify({type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/'}),
      JSON.stringify({type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: 'x', message: {role: 'user', content: `mentions k-1 in text ${'x'.repeat(3_000_000)}`}}),
      JSON.stringify({type: 'message', id: 'bbbbbbbb', parentId: 'aaaaaaaa', timestamp: 'x', message: {role: 'assistant', idempotencyKey: 'k-1', content: []}}),
    ]
    fs.writeFileSync(file, `${lines.join('\r\n')}\r\n`)
    expect(await findIdempotencyKey(file, 'k-1')).toEqual({entryId: 'bbbbbbbb', meta: undefined})
    expect(await findIdempotencyKey(file, 'k-2')).toBeUndefined()
    expect(await findIdempotencyKey(path.join(tempDir(), 'missing.jsonl'), 'k-1')).toBeUndefined()
  })
})
