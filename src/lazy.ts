// The heavy modules clawkit loads only when a command needs them, marked here and nowhere else. scripts/bundle.js
// reads this file: each `vendor:` line's import becomes dist/vendor/<name>.cjs (the names after it are what callers
// use), so the main bundle holds none of it and read commands never load it (test/e2e/startup.test.ts). A new
// lazily loaded library is one line here; calling import() of it anywhere else would bundle it into every start.

/** The Anthropic SDK slice an agent turn calls (~230 ms to import on Node 20: BENCHMARKS.md). */
export const importSdk = () => import('./agent/sdk.js') // vendor: anthropic-sdk MessagesClient
/** The spinner of long human-output commands (~50 ms). */
export const importOra = () => import('ora') // vendor: ora default
/** Tables of human output. */
export const importCliTable = () => import('cli-table3') // vendor: cli-table3 default
/** PostgreSQL's client, only for `sync` and `--store-url` (issue 19). */
export const importPg = () => import('pg') // vendor: pg default
/** RE2's linear-time regular expressions (a JavaScript port), only for `sessions search --regex` (issue 25). */
export const importRe2 = () => import('re2js') // vendor: re2js RE2JS
/** The MCP SDK's server and its stdio transport, only for `clawkit mcp` (issue 31). */
export const importMcpSdk = () => import('./mcp/sdk.js') // vendor: mcp-sdk Server CallToolRequestSchema ErrorCode ListToolsRequestSchema McpError AjvJsonSchemaValidator LineTransport
/** The catalog's build worker (its own file, which a Worker runs), only for a large build (issue 28). */
export const importCatalogWorker = () => import('./catalog/build-worker.js') // vendor: catalog-worker workerEntry
