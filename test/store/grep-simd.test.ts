// The hand-assembled WebAssembly SIMD finder behind search's raw prefilter (src/store/grep-simd.ts), called directly:
// it must validate and load on every Node clawkit supports (else search silently falls back to the slower scan), and
// find exactly the positions a plain loop finds, folded or not, at every alignment and up to the limit.
import {describe, expect, it} from 'vitest'

import {SimdBlock} from '../../src/store/grep-simd.js'

/** The reference: the first p in [at, limit) where both bytes agree after the same OR-folding, else -1. */
function slow(mem: Buffer, at: number, limit: number, dist: number, c1: number, c2: number, f1: number, f2: number): number {
  for (let p = at; p < limit; p++) if ((mem[p] | f1) === c1 && (mem[p + dist] | f2) === c2) return p
  return -1
}

describe('SimdBlock (WebAssembly SIMD two-byte finder)', () => {
  it('loads here: WebAssembly SIMD validates on this Node, so search takes the fast path', () => {
    expect(SimdBlock.create(1024)).toBeDefined()
  })

  it('agrees with a byte loop at every start offset and limit, case-folded and exact, including a match in the last vector', () => {
    const block = SimdBlock.create(4096)!
    const text = Buffer.from('xx kubeconfig yy KubeConfig zz kUBECONFIG  kubex conf '.repeat(8))
    text.copy(block.bytes, 0)
    const len = text.length
    const cases = [
      {c1: 'k'.charCodeAt(0), c2: 'c'.charCodeAt(0), dist: 4, f1: 0x20, f2: 0x20},
      {c1: 'K'.charCodeAt(0), c2: 'C'.charCodeAt(0), dist: 4, f1: 0, f2: 0},
      {c1: 'e'.charCodeAt(0), c2: 'g'.charCodeAt(0), dist: 6, f1: 0x20, f2: 0x20},
    ]
    let found = 0
    for (const c of cases) {
      for (let at = 0; at < 80; at++) {
        for (const limit of [at, at + 1, at + 17, len - 32, len - 20]) {
          if (limit < at) continue
          const want = slow(block.bytes, at, limit, c.dist, c.c1, c.c2, c.f1, c.f2)
          const got = block.find(at, limit, c.dist, c.c1, c.c2, c.f1, c.f2)
          // A result at or past limit means none below it (the last vector looks past limit).
          expect(got === -1 || got >= limit ? -1 : got, `${JSON.stringify(c)} at ${at} limit ${limit}`).toBe(want)
          if (want !== -1) found++
        }
      }
    }
    expect(found).toBeGreaterThan(100)
  })

  it('grows and keeps its contents; the Buffer view is renewed', () => {
    const block = SimdBlock.create(100)!
    block.bytes.write('hello', 10)
    block.grow(200_000)
    expect(block.bytes.length).toBeGreaterThanOrEqual(200_000)
    expect(block.bytes.toString('utf8', 10, 15)).toBe('hello')
  })
})
