// fast-check generators for broken and hostile OpenClaw files: sessions.json, transcripts and openclaw.json.
import fc from 'fast-check'

const enc = (s: string) => Buffer.from(s, 'utf8')

/** Random bytes, often not UTF-8 at all. */
export const randomBytes = fc.uint8Array({maxLength: 600}).map((a) => Buffer.from(a))

/** Bytes that are invalid UTF-8 (lone continuation bytes, overlong forms, truncated sequences). */
const invalidUtf8 = fc.constantFrom(Buffer.from([0xff, 0xfe]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xe2, 0x82]), Buffer.from([0x80]), Buffer.from([0xed, 0xa0, 0x80]))

/** Take valid text and break it: truncate, splice junk in, or drop a byte. */
export function nearValid(text: string): fc.Arbitrary<Buffer> {
  const len = Math.max(1, text.length)
  return fc.oneof(
    fc.nat({max: len}).map((n) => enc(text.slice(0, n))),
    fc.tuple(fc.nat({max: len}), fc.constantFrom(',', '}', '{', '"', ']', '\\', '\u0000', 'NaN', '//', '\n')).map(([n, junk]) => enc(text.slice(0, n) + junk + text.slice(n))),
    fc.tuple(fc.nat({max: len}), invalidUtf8).map(([n, bad]) => Buffer.concat([enc(text.slice(0, n)), bad, enc(text.slice(n))])),
    fc.nat({max: len - 1}).map((n) => enc(text.slice(0, n) + text.slice(n + 1))),
  )
}

/** Values of the wrong type for any field. */
const wrongValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(-1, 0, 1e308, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
  fc.string({maxLength: 20}),
  fc.constant([]),
  fc.constant({}),
  fc.constant([1, 'a', null]),
  fc.constant({nested: {deep: [1, {x: null}]}}),
)

/** Path-like strings that try to escape the state dir. */
export const hostilePath = fc.constantFrom(
  '../../../../etc/passwd',
  '/etc/passwd',
  '/etc/shadow',
  '..',
  '.',
  '',
  ' ',
  'a\u0000b',
  '../openclaw.json',
  '../../openclaw.json',
  '/tmp',
  `${'a'.repeat(300)}.jsonl`,
  `${'../'.repeat(40)}etc/hosts`,
  'C:\\Windows\\system32',
  '~/.ssh/id_rsa',
  '%2e%2e%2fetc%2fpasswd',
  'sessions.json',
)

const sessionIdValue = fc.oneof(fc.uuid().map((u) => u as string), hostilePath, wrongValue, fc.string({maxLength: 40}))

/** One session entry with any mix of plausible, missing, hostile and wrongly typed fields. */
export const weirdEntry: fc.Arbitrary<unknown> = fc.oneof(
  {weight: 4, arbitrary: fc.record(
    {
      sessionId: sessionIdValue,
      updatedAt: fc.oneof(fc.integer({min: 0, max: 2_000_000_000_000}), wrongValue),
      sessionFile: fc.oneof(hostilePath, wrongValue),
      totalTokens: fc.oneof(fc.nat(), wrongValue),
      totalTokensFresh: fc.oneof(fc.boolean(), wrongValue),
      contextTokens: fc.oneof(fc.nat(), wrongValue),
      inputTokens: wrongValue,
      model: fc.oneof(fc.string({maxLength: 30}), wrongValue),
      modelProvider: wrongValue,
      chatType: fc.oneof(fc.constantFrom('group', 'channel', 'direct'), wrongValue),
      thinkingLevel: wrongValue,
      label: wrongValue,
    },
    {requiredKeys: []},
  )},
  {weight: 1, arbitrary: wrongValue},
)

export const weirdKey = fc.oneof(
  fc.constantFrom('agent:main:main', 'agent:main:MAIN', 'Agent:Main:Main', 'main', '__proto__', 'constructor', 'prototype', 'agent::', 'agent:../..:main', 'agent:main:telegram:group:-100', 'global', 'unknown', '', 'agent:main:main:thread:1', `agent:main:${'k'.repeat(600)}`),
  fc.string({maxLength: 30}),
)

/** sessions.json documents: a JSON object from hostile keys to weird entries, written without JSON.stringify's help. */
const weirdIndexText = fc.array(fc.tuple(weirdKey, weirdEntry), {maxLength: 6}).map((pairs) => `{\n${pairs.map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v, null, 2)}`).join(',\n')}\n}`)

export function sessionsJsonArb(fixtureText: string): fc.Arbitrary<{kind: string; bytes: Buffer}> {
  return fc.oneof(
    randomBytes.map((bytes) => ({kind: 'random-bytes', bytes})),
    nearValid(fixtureText).map((bytes) => ({kind: 'near-valid', bytes})),
    fc.jsonValue({maxDepth: 3}).map((v) => ({kind: 'any-json', bytes: enc(JSON.stringify(v) ?? 'null')})),
    weirdIndexText.map((t) => ({kind: 'weird-entries', bytes: enc(t)})),
    weirdIndexText.chain((t) => nearValid(t)).map((bytes) => ({kind: 'weird-entries-broken', bytes})),
    fc.constantFrom('', ' ', '\n', '{}', '[]', 'null', '0', '"x"', '{"agent:main:main": null}', '{"a":1,"a":2}', `${'['.repeat(5000)}${']'.repeat(5000)}`, `{"agent:main:main":${'{"x":'.repeat(3000)}1${'}'.repeat(3000)}}`).map((t) => ({kind: 'edge', bytes: enc(t)})),
    bomLed(fc.oneof(fc.constant(fixtureText), weirdIndexText)).map((bytes) => ({kind: 'bom-led', bytes})),
  )
}

/** A UTF-8 byte order mark before the text (Notepad, PowerShell), sometimes on a file that is broken as well. */
export function bomLed(text: fc.Arbitrary<string>): fc.Arbitrary<Buffer> {
  return fc.tuple(text, fc.boolean()).chain(([t, broken]) => (broken ? nearValid(t) : fc.constant(enc(t)))).map((b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]))
}

/** Names of Object.prototype members and the like, which a plain-object index would misread or lose as keys. */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf']

/** A spelling of one name: as is, upper-cased, or with random letters upper-cased (`__Proto__`). */
const spelling = (name: string) => fc.oneof(fc.constant(name), fc.constant(name.toUpperCase()), fc.array(fc.boolean(), {minLength: name.length, maxLength: name.length}).map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c)).join('')))

export interface ProtoRow {
  key: string
  sessionId: string
  label: string
  withUpdatedAt: boolean
}

/** 1-4 rows under prototype-named keys (distinct once lowercased, as OpenClaw folds keys), each with its own label. */
export const protoRowsArb: fc.Arbitrary<ProtoRow[]> = fc
  .uniqueArray(fc.constantFrom(...PROTOTYPE_NAMES), {minLength: 1, maxLength: 4})
  .chain((names) => fc.tuple(...names.map((n) => fc.tuple(spelling(n), fc.boolean()))))
  .map((rows) => rows.map(([key, withUpdatedAt], i) => ({key, sessionId: `proto-row-${i}`, label: `keep ${key} ${i}`, withUpdatedAt})))

/** The fixture index with the rows spliced in as text (a JS object literal would turn `__proto__` into a prototype). */
export function withProtoRows(fixtureText: string, rows: ProtoRow[]): string {
  const add = rows.map((r) => `  ${JSON.stringify(r.key)}: ${JSON.stringify(r.withUpdatedAt ? {sessionId: r.sessionId, updatedAt: 1_700_000_000_000, label: r.label} : {sessionId: r.sessionId, label: r.label})}`)
  return fixtureText.replace(/\n}\s*$/, `,\n${add.join(',\n')}\n}`)
}

// ---------------------------------------------------------------------------------------------------------------
// Transcripts

const header = fc.oneof(
  {weight: 3, arbitrary: fc.constant({type: 'session', version: 3, id: 'SESSION', timestamp: '2026-04-12T09:14:03.512Z', cwd: '/w'})},
  {weight: 2, arbitrary: fc.record({type: fc.oneof(fc.constant('session'), wrongValue), version: fc.oneof(fc.constantFrom(1, 2, 3, 4, 99, -1, 0, 2.5, '3'), wrongValue), id: fc.oneof(fc.constant('SESSION'), wrongValue), timestamp: wrongValue, cwd: wrongValue}, {requiredKeys: []})},
  {weight: 1, arbitrary: wrongValue},
)

const contentBlock = fc.oneof(
  fc.record({type: fc.constant('text'), text: fc.oneof(fc.string({maxLength: 50}), wrongValue)}, {requiredKeys: ['type']}),
  fc.record({type: fc.constant('thinking'), thinking: fc.oneof(fc.string({maxLength: 50}), wrongValue)}, {requiredKeys: ['type']}),
  fc.record({type: fc.constant('toolCall'), id: wrongValue, name: fc.oneof(fc.string({maxLength: 10}), wrongValue), arguments: fc.oneof(fc.jsonValue({maxDepth: 2}), wrongValue)}, {requiredKeys: ['type']}),
  fc.record({type: fc.constant('image'), data: wrongValue, mimeType: wrongValue}, {requiredKeys: ['type']}),
  wrongValue,
)

const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'assistant', 'toolResult', 'custom', 'hookMessage', 'bashExecution'), wrongValue),
    content: fc.oneof(fc.string({maxLength: 60}), fc.array(contentBlock, {maxLength: 4}), wrongValue),
    toolCallId: wrongValue,
    toolName: wrongValue,
    isError: wrongValue,
    usage: wrongValue,
    stopReason: fc.oneof(fc.constantFrom('stop', 'aborted', 'error', 'toolUse'), wrongValue),
    errorMessage: wrongValue,
    provider: wrongValue,
    model: wrongValue,
    timestamp: wrongValue,
  },
  {requiredKeys: []},
)

const idValue = fc.oneof(fc.stringMatching(/^[0-9a-f]{8}$/), wrongValue)

const entry = fc.oneof(
  {weight: 4, arbitrary: fc.record({type: fc.constant('message'), id: idValue, parentId: fc.oneof(idValue, fc.constant(null)), timestamp: fc.oneof(fc.constant('2026-04-12T09:14:04.000Z'), wrongValue), message: fc.oneof(message, wrongValue)}, {requiredKeys: ['type']})},
  {weight: 1, arbitrary: fc.record({type: fc.constant('compaction'), id: idValue, parentId: idValue, timestamp: wrongValue, summary: wrongValue, firstKeptEntryId: idValue, firstKeptEntryIndex: wrongValue, tokensBefore: wrongValue}, {requiredKeys: ['type']})},
  {weight: 1, arbitrary: fc.record({type: fc.constantFrom('model_change', 'thinking_level_change', 'custom', 'custom_message', 'branch_summary', 'label', 'session_info', 'session', 'unknown-type'), id: idValue, parentId: idValue, timestamp: wrongValue, provider: wrongValue, modelId: wrongValue, thinkingLevel: wrongValue, customType: wrongValue, content: wrongValue, summary: wrongValue}, {requiredKeys: ['type']})},
  {weight: 1, arbitrary: fc.record({id: idValue, parentId: idValue, message: message}, {requiredKeys: []})},
  {weight: 1, arbitrary: wrongValue},
)

type Line = {kind: 'json'; value: unknown} | {kind: 'raw'; bytes: Buffer}

const line: fc.Arbitrary<Line> = fc.oneof(
  {weight: 6, arbitrary: entry.map((value) => ({kind: 'json' as const, value}))},
  {weight: 1, arbitrary: fc.string({maxLength: 80}).map((s) => ({kind: 'raw' as const, bytes: enc(s)}))},
  {weight: 1, arbitrary: invalidUtf8.map((bytes) => ({kind: 'raw' as const, bytes: Buffer.concat([enc('{"type":"message","id":"abcd1234","message":{"role":"user","content":"'), bytes, enc('"}}')])}))},
  {weight: 1, arbitrary: fc.constantFrom(1_100_000, 2_500_000).map((n) => ({kind: 'json' as const, value: {type: 'message', id: 'beefbeef', parentId: null, timestamp: '2026-04-12T09:14:04.000Z', message: {role: 'user', content: 'z'.repeat(n)}}}))},
  {weight: 1, arbitrary: randomBytes.map((bytes) => ({kind: 'raw' as const, bytes}))},
)

/** A transcript for session `sessionId`: a (maybe broken) header, then good, bad and huge lines, any line ending. */
export function transcriptArb(sessionId: string, fixture: Buffer): fc.Arbitrary<{kind: string; bytes: Buffer}> {
  const built = fc.record({head: header, lines: fc.array(line, {maxLength: 12}), eol: fc.constantFrom('\n', '\r\n'), finalNewline: fc.boolean()}).map(({head, lines, eol, finalNewline}) => {
    const headText = JSON.stringify(head)?.replaceAll('"SESSION"', JSON.stringify(sessionId)) ?? 'null'
    const parts = [enc(headText), ...lines.map((l) => (l.kind === 'json' ? enc(JSON.stringify(l.value) ?? 'null') : l.bytes))]
    const chunks: Buffer[] = []
    parts.forEach((p, i) => {
      chunks.push(p)
      if (i < parts.length - 1 || finalNewline) chunks.push(enc(eol))
    })
    return {kind: 'generated', bytes: Buffer.concat(chunks)}
  })
  return fc.oneof(
    {weight: 5, arbitrary: built},
    {weight: 2, arbitrary: nearValid(fixture.toString('utf8')).map((bytes) => ({kind: 'near-valid', bytes}))},
    {weight: 1, arbitrary: randomBytes.map((bytes) => ({kind: 'random-bytes', bytes}))},
  )
}

// ---------------------------------------------------------------------------------------------------------------
// openclaw.json

const weirdConfig = fc.record(
  {
    agents: fc.oneof(
      fc.record({list: fc.oneof(fc.array(fc.oneof(fc.record({id: fc.oneof(fc.constantFrom('main', 'work', 'MAIN', '../evil', '', ' ', 'a/b', '..', '__proto__', 'x'.repeat(200)), wrongValue), default: wrongValue, workspace: fc.oneof(hostilePath, wrongValue), model: wrongValue}, {requiredKeys: []}), wrongValue), {maxLength: 4}), wrongValue), defaults: fc.oneof(fc.record({model: wrongValue, contextTokens: wrongValue, workspace: wrongValue}, {requiredKeys: []}), wrongValue)}, {requiredKeys: []}),
      wrongValue,
    ),
    session: fc.oneof(fc.record({store: fc.oneof(fc.constantFrom('', ' ', 'rel/sessions.json', 'rel/{agentId}.json', '~/stores/{agentId}/sessions.json', '{agentId}', '../state/agents/{agentId}/sessions/sessions.json'), wrongValue), dmScope: wrongValue, mainKey: wrongValue}, {requiredKeys: []}), wrongValue),
    models: fc.oneof(fc.record({providers: fc.oneof(fc.dictionary(fc.string({maxLength: 8}), fc.oneof(fc.record({models: fc.oneof(fc.array(fc.oneof(fc.record({id: wrongValue, contextWindow: wrongValue}, {requiredKeys: []}), wrongValue), {maxLength: 3}), wrongValue), baseUrl: wrongValue}, {requiredKeys: []}), wrongValue), {maxKeys: 3}), wrongValue)}, {requiredKeys: []}), wrongValue),
  },
  {requiredKeys: []},
)

export function configArb(fixtureText: string): fc.Arbitrary<{kind: string; bytes: Buffer}> {
  return fc.oneof(
    {weight: 4, arbitrary: weirdConfig.map((c) => ({kind: 'weird-config', bytes: enc(JSON.stringify(c, null, 2))}))},
    {weight: 2, arbitrary: nearValid(fixtureText).map((bytes) => ({kind: 'near-valid', bytes}))},
    {weight: 1, arbitrary: randomBytes.map((bytes) => ({kind: 'random-bytes', bytes}))},
    {weight: 1, arbitrary: fc.jsonValue({maxDepth: 3}).map((v) => ({kind: 'any-json', bytes: enc(JSON.stringify(v) ?? 'null')}))},
    {weight: 1, arbitrary: fc.constantFrom('', '// only a comment', '{agents: {list: [{id: "main"}]},}', "{'session': {'store': 5}}", '{"__proto__": {"polluted": true}}', '{"constructor": {"prototype": {"x": 1}}}').map((t) => ({kind: 'edge', bytes: enc(t)}))},
    {weight: 1, arbitrary: bomLed(fc.constant(fixtureText)).map((bytes) => ({kind: 'bom-led', bytes}))},
  )
}

// ---------------------------------------------------------------------------------------------------------------
// Special files and deep nesting

/** Every path clawkit opens. `session.store` points openclaw.json's store at the special file (like --store). */
export const SPECIAL_POSITIONS = ['openclaw.json', 'session.store', 'sessions.json', 'sessions.json.lock', 'transcript', 'transcript lock', 'workspace file', 'workspace bootstrap file'] as const
/**
 * What sits there. Devices are symlinks to /dev/zero and /dev/null (creating device nodes needs root); symlinks to a
 * FIFO and to a directory sit beside the target, where clawkit follows them.
 */
export const SPECIAL_KINDS = ['fifo', 'directory', 'symlink to /dev/zero', 'symlink to /dev/null', 'symlink to fifo', 'symlink to directory'] as const

export type SpecialPosition = (typeof SPECIAL_POSITIONS)[number]
export type SpecialKind = (typeof SPECIAL_KINDS)[number]

export const specialFileArb = fc.record({position: fc.constantFrom(...SPECIAL_POSITIONS), kind: fc.constantFrom(...SPECIAL_KINDS)})

/** Positions for JSON nested thousands deep (JSON.parse copes; JSON.stringify and JSON5 recurse and give up). */
export const DEEP_POSITIONS = ['sessions.json row', 'sessions.json top level', 'transcript line', 'transcript tool-call arguments', 'openclaw.json'] as const
export type DeepPosition = (typeof DEEP_POSITIONS)[number]

export const deepJsonArb = fc.record({
  position: fc.constantFrom(...DEEP_POSITIONS),
  depth: fc.constantFrom(2000, 5000, 20_000, 100_000),
  shape: fc.constantFrom('array', 'object'),
})

/** `depth` levels of nested arrays or objects, as text (JSON.stringify cannot write it). */
export function deepJsonText(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}`
}
