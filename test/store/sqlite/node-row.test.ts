import {describe, expect, it} from 'vitest'

import {NODE_COLUMNS, nodeRowOf} from '../../../src/store/sqlite/read.js'

describe('nodeRowOf (a session_nodes row read as an array)', () => {
  it('names every column of NODE_COLUMNS at its position, and nothing else', () => {
    const names = NODE_COLUMNS.split(',').map((c) => c.trim())
    const row = nodeRowOf(names.map((_, i) => i))
    expect(Object.keys(row)).toEqual(names)
    expect(Object.values(row)).toEqual(names.map((_, i) => i))
  })
})
