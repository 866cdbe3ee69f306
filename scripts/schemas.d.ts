// Types of scripts/schemas.js for the tests that import it.
export declare const ROOT: string
export declare const SCHEMA_DIR: string
export interface SchemaEntry {
  name: string
  command: string
  module: string
  type: string
  description: string
  /** Its successful output needs a SQLite-era store (checked by test/schemas.sqlite.test.ts on Node 24). */
  sqlite?: boolean
  /** Its successful output needs a PostgreSQL server (checked by test/e2e/fleet/sync.test.ts). */
  pg?: boolean
  /** A tool result of `clawkit mcp`, not a command's --json (checked by test/e2e/mcp.test.ts). */
  mcp?: boolean
}
export declare const SCHEMAS: readonly SchemaEntry[]
export declare function schemaFile(name: string): string
export declare function generateSchemas(): Promise<Record<string, string>>
export declare function serialize(schema: unknown): string
export declare function writeSchemas(): Promise<string[]>
