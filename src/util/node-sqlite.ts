// node:sqlite as clawkit uses it, for OpenClaw's agent databases (src/store/sqlite/) and for clawkit's own catalog
// (src/catalog/): the subset of its types clawkit calls, and the module itself, loaded on first use only.

/** The subset of node:sqlite clawkit uses; @types/node 20 has no declarations for it. */
export interface SqlStatement {
  all(...params: SqlValue[]): Record<string, SqlValue>[]
  get(...params: SqlValue[]): Record<string, SqlValue> | undefined
  run(...params: SqlValue[]): {changes: number | bigint; lastInsertRowid: number | bigint}
  iterate(...params: SqlValue[]): IterableIterator<Record<string, SqlValue>>
  /** INTEGER values as bigint (the journal keeps every stored value exactly). */
  setReadBigInts(enabled: boolean): void
  /** Rows as arrays in column order (Node 22.16+/24; absent on 22.15). */
  setReturnArrays?(enabled: boolean): void
}
export type SqlValue = null | number | bigint | string | Uint8Array
export interface SqlDatabase {
  exec(sql: string): void
  prepare(sql: string): SqlStatement
  close(): void
  readonly isOpen: boolean
  readonly isTransaction: boolean
}
export interface SqliteModule {
  DatabaseSync: new (path: string, opts?: {readOnly?: boolean; open?: boolean; enableForeignKeyConstraints?: boolean}) => SqlDatabase
  backup?: (source: SqlDatabase, dest: string) => Promise<number>
}

let cached: SqliteModule | undefined

/**
 * node:sqlite, or undefined on a Node without it (Node 20). Loaded on first use: commands that never open a database
 * never pay for it. Node 22 prints an ExperimentalWarning for it on stderr; that one warning is dropped so scripts get
 * clean stderr.
 */
export function nodeSqlite(): SqliteModule | undefined {
  if (cached) return cached
  const original = process.emitWarning
  process.emitWarning = function (warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message
    if (/SQLite is an experimental feature/i.test(text)) return
    return (original as (...a: unknown[]) => void).call(process, warning, ...rest)
  } as typeof process.emitWarning
  try {
    const get = (process as unknown as {getBuiltinModule?(id: string): unknown}).getBuiltinModule
    let mod: SqliteModule | undefined
    try {
      mod = get?.('node:sqlite') as SqliteModule | undefined
    } catch {}
    if (mod?.DatabaseSync) cached = mod
    return cached
  } finally {
    process.emitWarning = original
  }
}
