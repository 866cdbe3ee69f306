// Random v4 UUIDs for session ids, entry ids and temp-file names.

/**
 * crypto.randomUUID() through the Web Crypto global rather than an import of `node:crypto`: the import loaded that
 * module (~3 ms) at every start, where the global loads it on the first id made, and read commands make none. Same
 * generator (a CSPRNG), same format.
 */
export function randomUUID(): string {
  return globalThis.crypto.randomUUID()
}

/** pi's id: the first 8 hex chars of a UUID, re-drawn on collision, a full UUID after 100 tries. */
export function newEntryId(existing: Set<string>): string {
  for (let i = 0; i < 100; i++) {
    const id = randomUUID().slice(0, 8)
    if (!existing.has(id)) {
      existing.add(id)
      return id
    }
  }
  const id = randomUUID()
  existing.add(id)
  return id
}
