// Generated session histories for the context-read properties of both eras: the operations a writer chains (messages,
// settings, compactions, custom entries, branches), as fast-check arbitraries.
import fc from 'fast-check'

export type ChainOp =
  | {op: 'user' | 'toolResult'; size: number}
  | {op: 'assistant'; size: number; withModel: boolean; model: string}
  | {op: 'thinking'; level: string; valid: boolean}
  | {op: 'modelChange'; provider: string; valid: boolean}
  | {op: 'compaction'; keep: number; keepOffPath: boolean}
  | {op: 'custom'}
  | {op: 'branch'; back: number}

export const chainOpArbs: fc.Arbitrary<ChainOp>[] = [
  fc.record({op: fc.constantFrom('user' as const, 'toolResult' as const), size: fc.nat(300)}),
  fc.record({op: fc.constant('assistant' as const), size: fc.nat(300), withModel: fc.boolean(), model: fc.constantFrom('m-1', 'm-2')}),
  fc.record({op: fc.constant('thinking' as const), level: fc.constantFrom('off', 'low', 'high'), valid: fc.boolean()}),
  fc.record({op: fc.constant('modelChange' as const), provider: fc.constantFrom('anthropic', 'other'), valid: fc.boolean()}),
  fc.record({op: fc.constant('compaction' as const), keep: fc.nat(12), keepOffPath: fc.boolean()}),
  fc.record({op: fc.constant('custom' as const)}),
  fc.record({op: fc.constant('branch' as const), back: fc.nat(10)}),
]
