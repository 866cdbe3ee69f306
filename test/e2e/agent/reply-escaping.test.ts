// The model's streamed reply is untrusted text: control, bidi and zero-width characters reach the terminal made
// visible, while --json and the transcript keep the reply exactly as the model sent it.
import {describe, expect, it} from 'vitest'

import {json} from '../../support/cli.js'
import {agentEnvs, store, transcriptLines} from './setup.js'

const make = agentEnvs()

describe('agent reply on the terminal', () => {
  it('a reply with U+202E, U+2066, U+200B and an escape sequence prints them as <U+XXXX> and \\u001b; --json and the transcript keep them', async () => {
    const a = await make()
    const hidden = 'pay \u202Eexe.txt \u2066bob\u2069\u200B \u001b[2J done'
    const r = await a.run(['agent', '--agent', 'main', '-m', hidden])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: pay <U+202E>exe.txt <U+2066>bob<U+2069><U+200B> \\u001b[2J done\n')
    const doc = json(await a.run(['agent', '--agent', 'main', '-m', hidden, '--json']))
    expect(doc.payloads[0].text).toBe(`Echo: ${hidden}`)
    const file = store(a.state)['agent:main:main'].sessionFile
    const replies = transcriptLines(String(file)).filter((e) => e.message?.role === 'assistant')
    expect(replies.at(-1).message.content.find((b: {type: string}) => b.type === 'text').text).toBe(`Echo: ${hidden}`)
  })
  // The mock streams the reply in deltas of 16 UTF-16 units; "Echo: " is 6, so the offsets below are the split points.
  it('a joiner at the start of a delta, a joiner at the end of a delta and an emoji split in two deltas print as one unsplit reply would', async () => {
    const a = await make()
    const family = '\u{1F468}\u200D\u{1F469}'
    // Joiner at offset 16 (first unit of the second delta), then one at offset 47 (last unit of the third delta)
    // with an emoji split across the fourth and fifth deltas at offset 63/64, then a Persian non-joiner.
    const message = `abcdefgh${family}${'x'.repeat(26)}${family}${'y'.repeat(13)}\u{1F467}! \u0645\u06CC\u200C\u062E`
    expect(`Echo: ${message}`.indexOf('\u200D')).toBe(16)
    expect(`Echo: ${message}`.lastIndexOf('\u200D')).toBe(47)
    expect(`Echo: ${message}`.codePointAt(63)).toBe(0x1f467)
    const r = await a.run(['agent', '--agent', 'main', '-m', message])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`Echo: ${message}\n`)
  })

  it('a joiner that ends the whole reply is still shown, after the stream is flushed', async () => {
    const a = await make()
    const r = await a.run(['agent', '--agent', 'main', '-m', 'ends with a joiner\u200D'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('Echo: ends with a joiner<U+200D>\n')
  })
})
