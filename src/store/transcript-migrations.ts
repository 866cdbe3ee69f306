// pi's transcript format versions, upgraded in memory on read (store-format.md section 6.7), one named step per
// version, up to CURRENT_TRANSCRIPT_VERSION. Never written back: a read must not rewrite a user's file, and OpenClaw
// migrates (and rewrites) a file itself the next time it opens it.
import {newEntryId} from './random-id.js'
import {CURRENT_TRANSCRIPT_VERSION, type TranscriptEntry, type TranscriptHeader} from './transcript-types.js'

/** The version entries got `id`/`parentId` (a v1 file's lines carry neither, so their raw bytes are not the entries). */
export const ENTRY_IDS_SINCE = 2

/** A header's format version; a file without one (or without a header) is v1, as pi reads it. */
export function headerVersion(header: Pick<TranscriptHeader, 'version'> | undefined): number {
  return typeof header?.version === 'number' ? header.version : 1
}

type RawEntry = Record<string, unknown>

export interface MigrationStep {
  name: string
  from: number
  to: number
  run: (entries: RawEntry[]) => RawEntry[]
}

/**
 * v1 -> v2: entries get pi's 8-hex ids and a linear parent chain in file order, and a compaction's
 * `firstKeptEntryIndex` (a file line index with the header at 0) becomes `firstKeptEntryId`.
 */
export function v1ToV2(entries: RawEntry[]): RawEntry[] {
  const ids = new Set<string>()
  let prev: string | null = null
  const list = entries.map((e) => {
    const id = newEntryId(ids)
    const out: RawEntry = {...e, id, parentId: prev}
    prev = id
    return out
  })
  for (const e of list) {
    if (e.type === 'compaction' && typeof e.firstKeptEntryIndex === 'number') {
      const target = list[e.firstKeptEntryIndex - 1]
      if (target) e.firstKeptEntryId = target.id
      delete e.firstKeptEntryIndex
    }
  }
  return list
}

/** v2 -> v3: the message role `hookMessage` was renamed `custom`. */
export function v2ToV3(entries: RawEntry[]): RawEntry[] {
  return entries.map((e) => {
    const msg = e.message as {role?: string} | undefined
    if (e.type === 'message' && msg?.role === 'hookMessage') return {...e, message: {...msg, role: 'custom'}}
    return e
  })
}

/** Every step, in order; the last one's `to` is CURRENT_TRANSCRIPT_VERSION (test/store/transcript-migrations.test.ts). */
export const MIGRATIONS: readonly MigrationStep[] = [
  {name: 'v1-to-v2', from: 1, to: 2, run: v1ToV2},
  {name: 'v2-to-v3', from: 2, to: 3, run: v2ToV3},
]

/** The entries of a file of `version`, upgraded to CURRENT_TRANSCRIPT_VERSION. A newer file's entries pass unchanged. */
export function migrateEntries(version: number, entries: RawEntry[]): TranscriptEntry[] {
  let list = entries
  for (const step of MIGRATIONS) if (version < step.to && step.to <= CURRENT_TRANSCRIPT_VERSION) list = step.run(list)
  return list as TranscriptEntry[]
}
