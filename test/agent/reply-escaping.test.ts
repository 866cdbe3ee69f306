// The model's streamed reply is untrusted text: control, bidi and zero-width characters reach the terminal made
// visible, while --json and the transcript keep the reply exactly as the model sent it.
import {describe, expect, it} from 'vitest'

import {json} from '../support/cli.js'
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
    const replies = transcriptLines(file).filter((e) => e.message?.role === 'assistant')
    expect(replies.at(-1).message.content.find((b: {type: string}) => b.type === 'text').text).toBe(`Echo: ${hidden}`)
  })
})
