// The number formats of the tables: OpenClaw's compact token counts, and grouped exact counts.
import {describe, expect, it} from 'vitest'

import {formatTokensCell, formatTokensK, groupDigits} from '../../src/sessions/format.js'

describe('formatTokensK (OpenClaw 2026.9.6 formatTokenCount)', () => {
  it('prints counts under 1000 as they are: a session just reset is 0, not 0.0k', () => {
    expect(formatTokensK(0)).toBe('0')
    expect(formatTokensK(-5)).toBe('0')
    expect(formatTokensK(Number.NaN)).toBe('0')
    expect(formatTokensK(523)).toBe('523')
    expect(formatTokensCell(0, 200_000)).toBe('0/200k (0%)')
  })

  it('keeps OpenClaw\'s k form from 1000 up (one decimal below 10k), and m from a million, where 999 600 rounds to', () => {
    expect(formatTokensK(1000)).toBe('1.0k')
    expect(formatTokensK(7042)).toBe('7.0k')
    expect(formatTokensK(9_681)).toBe('9.7k')
    expect(formatTokensK(10_000)).toBe('10k')
    expect(formatTokensK(200_000)).toBe('200k')
    expect(formatTokensK(999_400)).toBe('999k')
    expect(formatTokensK(999_600)).toBe('1.0m')
    expect(formatTokensK(2_500_000)).toBe('2.5m')
  })
})

describe('groupDigits', () => {
  it('groups thousands with commas, whatever the locale', () => {
    expect(groupDigits(0)).toBe('0')
    expect(groupDigits(999)).toBe('999')
    expect(groupDigits(63_712)).toBe('63,712')
    expect(groupDigits(1_234_567)).toBe('1,234,567')
    expect(groupDigits(-1234)).toBe('-1,234')
  })
})
