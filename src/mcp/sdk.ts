// The slice of the official MCP TypeScript SDK (@modelcontextprotocol/sdk) that `clawkit mcp` uses, and its stdio
// transport: loaded only by that command (src/lazy.ts, importMcpSdk), bundled into dist/vendor/mcp-sdk.cjs, so no other
// command's start-up reads a byte of it (test/e2e/startup.test.ts).
export {Server} from '@modelcontextprotocol/sdk/server/index.js'
export {CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError} from '@modelcontextprotocol/sdk/types.js'
export {AjvJsonSchemaValidator} from '@modelcontextprotocol/sdk/validation/ajv'
export {LineTransport} from './transport.js'
