#!/usr/bin/env node
// `npm run schemas`: writes schemas/<name>.schema.json, one JSON Schema (draft-07) per `--json` document, generated
// from the result types the commands export. test/schemas.test.ts regenerates them in memory and fails when the
// committed files are stale, then validates real CLI output against them.
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const SCHEMA_DIR = path.join(ROOT, 'schemas')

/**
 * The one list of `--json` documents. A new command's document is one line here: the schema file's name, the module
 * that exports the type (the command module, so the schema follows what the command returns), the exported type's
 * name, and a one-line description (`sqlite: true` when its output needs a SQLite-era store, `pg: true` a PostgreSQL server). Then `npm run schemas`,
 * and add a run of the command to test/schemas.test.ts (or test/schemas.sqlite.test.ts).
 */
export const SCHEMAS = [
  {name: 'agent', command: 'agent', module: 'src/commands/agent.ts', type: 'AgentRunResult', description: 'One agent turn: the reply payloads and the run\'s metadata, as `openclaw agent --local --json` prints them, plus delivery results with --deliver.'},
  {name: 'doctor', command: 'doctor', module: 'src/commands/doctor.ts', type: 'DoctorResult', description: 'Every finding of the checks (and repairs) of the state dir and each agent\'s session store, with counts and the exit code.'},
  {name: 'error', command: '<any command>', module: 'src/error-report.ts', type: 'ErrorEnvelope', description: 'The document every command prints on stdout under --json when it fails; the process exits with error.exitCode.'},
  {name: 'index', command: 'index', module: 'src/commands/index/index.ts', type: 'IndexResult', sqlite: true, description: 'The local catalog of a state dir after `clawkit index` built, rebuilt, dropped or described it: its file and size against the text it covers, the full-text index and ledger apart, and what the run read.'},
  // mcp: a tool result of `clawkit mcp`, not a command's --json; test/e2e/mcp.test.ts checks it (the SDK's client validates
  // every result against the tool's output schema).
  {name: 'mcp-export', command: 'mcp, tool sessions_export', module: 'src/commands/mcp.ts', type: 'McpExportResult', mcp: true, description: 'A page of a session exported as Markdown by the sessions_export tool of `clawkit mcp`: the text from `offset`, and `nextOffset` for the next page (null at the end).'},
  {name: 'message-send', command: 'message send', module: 'src/commands/message/send.ts', type: 'MessageSendResult', description: 'A message sent to a chat (or, with --dry-run, the requests it would take) and its copy in the session.'},
  {name: 'sessions-export', command: 'sessions export', module: 'src/commands/sessions/export.ts', type: 'SessionsExportResult', description: 'A session (or every session of its key) exported as md, html or jsonl to --out: the sessions, messages and bytes written.'},
  {name: 'sessions-history', command: 'sessions history', module: 'src/commands/sessions/history.ts', type: 'SessionsHistoryResult', description: 'The last entries of a session\'s transcript, flattened, with the lines that could not be read.'},
  {name: 'sessions-follow', command: 'sessions history --follow', module: 'src/commands/sessions/history.ts', type: 'SessionsFollowLine', description: 'One line of the JSON Lines stream `sessions history --follow --json` prints: a transcript entry (its `entry` is sessions-history\'s HistoryEntry), a change of the key\'s session (start, new, reset, deleted) or a line that cannot be read.'},
  {name: 'sessions-lineage', command: 'sessions lineage', module: 'src/commands/sessions/lineage.ts', type: 'SessionsLineageResult', description: 'Every session a key has had across resets, oldest first: where each transcript is, its message times, counts, usage totals and how it ended.'},
  {name: 'sessions-list', command: 'sessions list', module: 'src/commands/sessions/list.ts', type: 'SessionsListResult', description: 'The sessions of one or more agent stores, newest first, in the shape of `openclaw sessions --json`.'},
  {name: 'sessions-archive', command: 'sessions archive', module: 'src/commands/sessions/archive.ts', type: 'SessionsArchiveResult', description: 'Sessions marked archived as OpenClaw 2026.9.6 marks them (archivedAt, archiveReason manual), and the journal entry that records it.'},
  {name: 'sessions-cleanup', command: 'sessions cleanup', module: 'src/commands/sessions/cleanup.ts', type: 'SessionsCleanupResult', description: 'The cleanup plan (or what was applied) per store: OpenClaw 2026.9.6\'s counters, every session changed and file removed with why, and the journal entry.'},
  {name: 'sessions-delete', command: 'sessions delete', module: 'src/commands/sessions/delete.ts', type: 'SessionsDeleteResult', description: 'Sessions deleted as OpenClaw deletes them, where each transcript was kept (a .deleted. file or a SQLite archive row), and the journal entry.'},
  {name: 'sessions-restore', command: 'sessions restore', module: 'src/commands/sessions/restore.ts', type: 'SessionsRestoreResult', description: 'A session brought back: un-archived, or a deleted or reset transcript made the live session of its key again, and the journal entry.'},
  {name: 'sessions-reset', command: 'sessions reset', module: 'src/commands/sessions/reset.ts', type: 'SessionsResetOutput', description: 'A session reset (new sessionId, old transcript archived), or with --dry-run what the reset would do.'},
  {name: 'sessions-search', command: 'sessions search', module: 'src/commands/sessions/search.ts', type: 'SessionsSearchResult', description: 'Hits of a literal or regular expression in message text, tool-call arguments, tool results and summaries, newest first, each with its transcript location, and the engine (full-text index or scan) that found them.'},
  {name: 'sessions-usage', command: 'sessions usage', module: 'src/commands/sessions/usage.ts', type: 'SessionsUsageResult', description: 'Token and cost totals of every assistant message across keys, resets and archives, grouped by session, key, agent, model, day or month, with a total.'},
  {name: 'undo', command: 'undo', module: 'src/commands/undo.ts', type: 'UndoOutput', description: 'A journaled change undone (or applied again), what undo would do (--dry-run), the journal of the state dir (--list), or the entries pruned (--prune).'},
  {name: 'status', command: 'status', module: 'src/commands/status.ts', type: 'StatusResult', description: 'State dir, agents, recent sessions, doctor\'s cheap checks and the gateway probe; `sessions` and `agents` mirror OpenClaw\'s status JSON.'},
  // pg: the command's successful output needs a PostgreSQL server, so test/e2e/fleet/read.test.ts (status-fleet) and
  // test/e2e/fleet/sync.test.ts (sync) check it.
  {name: 'status-fleet', command: 'status --store-url', module: 'src/commands/status.ts', type: 'FleetStatusResult', pg: true, description: 'The fleet replica: per host its last sync and lag, whether a sync started since, its agents with their store era, sessions and transcripts.'},
  {name: 'sync', command: 'sync', module: 'src/commands/sync.ts', type: 'SyncResult', pg: true, description: 'One host synced into the fleet database: host, database (without password), schema migrations, and per agent what was uploaded, kept and pruned.'},
  // sqlite: the command's successful output needs a SQLite-era store, so test/schemas.sqlite.test.ts (Node 24) checks it.
  {name: 'store-export', command: 'store export', module: 'src/commands/store/export.ts', type: 'StoreExportResult', sqlite: true, description: 'A JSON-era state dir written from SQLite-era stores: per agent, the sessions and transcripts written and what was skipped.'},
  {name: 'store-info', command: 'store info', module: 'src/commands/store/info.ts', type: 'StoreInfoResult', sqlite: true, description: 'Per agent: the store era, database path, schema, counts, sizes, legacy leftovers, import archives and migration runs.'},
  {name: 'store-verify', command: 'store verify', module: 'src/commands/store/verify.ts', type: 'StoreVerifyResult', sqlite: true, description: 'Every legacy transcript OpenClaw imported compared with the database events: missing, extra and different events per session.'},
]

/** The file a schema is committed as. */
export function schemaFile(name) {
  return path.join(SCHEMA_DIR, `${name}.schema.json`)
}

/**
 * Every schema as the text it is committed with, keyed by name. One TypeScript program serves them all (~3 s); each
 * type is taken from its module's exports, so two types of one name elsewhere in src/ cannot be confused.
 */
export async function generateSchemas() {
  // Lazily: the test file imports SCHEMAS without paying for TypeScript until it generates.
  const {default: tsj} = await import('ts-json-schema-generator')
  const {default: ts} = await import('typescript')
  const config = {
    ...tsj.DEFAULT_CONFIG,
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    // tsc checks the types (npm run typecheck); checking them again here only costs time.
    skipTypeCheck: true,
    expose: 'export',
    topRef: false,
    jsDoc: 'extended',
    // Objects are closed unless their type has an index signature: a renamed or added field fails validation.
    additionalProperties: false,
  }
  const program = tsj.createProgram(config)
  const generator = new tsj.SchemaGenerator(program, tsj.createParser(program, config), tsj.createFormatter(config), config)
  const checker = program.getTypeChecker()
  const out = {}
  for (const s of SCHEMAS) {
    const file = program.getSourceFile(path.join(ROOT, s.module))
    if (!file) throw new Error(`schemas: ${s.module} is not part of tsconfig.json's program`)
    let symbol = checker.getExportsOfModule(checker.getSymbolAtLocation(file)).find((e) => e.name === s.type)
    if (!symbol) throw new Error(`schemas: ${s.module} does not export a type named ${s.type}`)
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol)
    const node = symbol.declarations?.find((d) => ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d))
    if (!node) throw new Error(`schemas: ${s.type} (exported by ${s.module}) is not an interface or a type alias`)
    const schema = generator.createSchemaFromNodes([node])
    out[s.name] = serialize({...schema, title: `clawkit ${s.command} --json`, description: s.description})
  }
  return out
}

/**
 * Stable text: object keys sorted at every depth, and the arrays that are sets (`required`, a string `enum`) sorted,
 * so reordering fields in a type or the generator's traversal order changes no byte.
 */
export function serialize(schema) {
  return `${JSON.stringify(sortDeep(schema), null, 2)}\n`
}

function sortDeep(v, key) {
  if (Array.isArray(v)) {
    const items = v.map((x) => sortDeep(x))
    const isSet = key === 'required' || (key === 'enum' && items.every((x) => typeof x === 'string'))
    return isSet ? items.sort() : items
  }
  if (v && typeof v === 'object') {
    const o = {}
    for (const k of Object.keys(v).sort()) o[k] = sortDeep(v[k], k)
    return o
  }
  return v
}

/** Writes every schema and removes schema files no entry names any more. */
export async function writeSchemas() {
  const schemas = await generateSchemas()
  fs.mkdirSync(SCHEMA_DIR, {recursive: true})
  for (const [name, text] of Object.entries(schemas)) fs.writeFileSync(schemaFile(name), text)
  for (const f of fs.readdirSync(SCHEMA_DIR)) {
    if (f.endsWith('.schema.json') && !(f.slice(0, -'.schema.json'.length) in schemas)) fs.rmSync(path.join(SCHEMA_DIR, f))
  }
  return Object.keys(schemas)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = await writeSchemas()
  console.log(`schemas: wrote ${names.length} schema(s) to schemas/ (${names.join(', ')})`)
}
