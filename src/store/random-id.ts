// Random v4 UUIDs for session ids, entry ids and temp-file names.

/**
 * crypto.randomUUID() through the Web Crypto global rather than an import of `node:crypto`: the import loaded that
 * module (~3 ms) at every start, where the global loads it on the first id made, and read commands make none. Same
 * generator (a CSPRNG), same format.
 */
export function randomUUID(): string {
  return globalThis.crypto.randomUUID()
}
