// Random v4 UUIDs for session ids, entry ids and temp-file names.

/**
 * crypto.randomUUID() through the Web Crypto global rather than `node:crypto`: that module costs ~3 ms to load at
 * start-up, and read commands never need an id. Same generator (a CSPRNG), same format.
 */
export function randomUUID(): string {
  return globalThis.crypto.randomUUID()
}
