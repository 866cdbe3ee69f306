// Reads a transcript for an agent turn: every entry's id and parent, but full JSON only for what the context uses.
//
// Why: a turn rebuilds the model's context from the leaf's path (context.ts), and on a long session most of that path
// lies before the last compaction, where only the newest thinking-level and model entries still count. Parsing every
// line of a 50 MB transcript cost ~0.4 s and ~190 MB of heap per turn (BENCHMARKS.md). Lines that start the way pi
// writes them (`{"type":…,"id":…,"parentId":…,`) become stubs holding just those three fields; the path is followed
// over stubs, and a stub is parsed when the context needs it. buildSessionContext over the result gives what it gives
// over a whole read (test/store/file/context-read.test.ts checks this on generated transcripts).
//
// The assumption: the lines on the leaf's path before the last compaction are well-formed JSON with unique ids.
// Every stub the context needs is parsed and checked against its prefix, and a failure falls back to the whole read;
// a torn tail is dropped as a whole read drops it. Where the two reads could still differ is a file whose broken line
// still links the path: a torn line some writer chained onto anyway (a hand edit, or a long-running writer whose
// append failed part-way and which kept chaining in memory), a broken line reusing an earlier entry's id, or JSON
// with duplicate id/parentId keys. In those cases the lazy read follows the broken line's prefix, where a whole read
// drops the line. Fuzzing ~16 000 generated transcripts with every other kind of damage found no difference.
import {readRegularFileSync} from '../../os/safe-open.js'
import {type ContextRead, contextPath, type Slot, type Stub, stubSlot} from '../context-path.js'
import {pathToLeaf} from '../context.js'
import {isEntry, isHeader} from '../entries.js'
import {parseLine} from '../lines.js'
import {CURRENT_TRANSCRIPT_VERSION, type TranscriptEntry} from '../transcript-types.js'
import {lineRanges} from './line-reader.js'
import {parseTranscript, TRANSCRIPT_FILE} from './transcript.js'

/** Smaller files are read whole: the saving is for long sessions, and below this it is a few milliseconds. */
export const LAZY_READ_MIN_BYTES = 4 * 1024 * 1024

// The fields pi writes first (chainEntries keeps its order). Printable ASCII without quotes or backslashes only, so
// the captured text is exactly the JSON value whatever the decoding; anything else is parsed in full.
const PREFIX_RE = /^\{"type":"([A-Za-z_]+)","id":"([\x20\x21\x23-\x5b\x5d-\x7e]*)","parentId":(?:null|"([\x20\x21\x23-\x5b\x5d-\x7e]*)"),/
/** Enough bytes for the prefix with ids of any sane length (pi's are 8 hex, a UUID at most). */
const PREFIX_BYTES = 256

function wholeRead(file: string, buf: Buffer): ContextRead {
  const t = parseTranscript(file, buf)
  return {header: t.header, badHeader: t.badHeader, missingFinalNewline: t.missingFinalNewline, entries: t.entries, path: pathToLeaf(t.entries), stubs: 0}
}

export async function readTranscriptForContext(file: string, opts: {minBytes?: number} = {}): Promise<ContextRead> {
  // One synchronous read: the caller holds the transcript lock anyway, and fs/promises would read a 50 MB file in
  // 512 KiB steps through the thread pool.
  const buf = readRegularFileSync(file, TRANSCRIPT_FILE)
  if (buf.length < (opts.minBytes ?? LAZY_READ_MIN_BYTES)) return wholeRead(file, buf)
  const missingFinalNewline = buf.length > 0 && buf[buf.length - 1] !== 0x0a

  // Non-blank lines as byte ranges, as the line reader keeps them; only a line's first bytes are decoded to find its
  // prefix, and the whole line only when it is parsed (decoding 50 MB up front cost ~50 ms and its garbage).
  const {starts, ends} = lineRanges(buf)
  const lineText = (i: number) => buf.toString('utf8', starts[i], ends[i])
  const lineCount = starts.length
  const first = lineCount > 0 ? parseLine(lineText(0), 0, 1, false) : undefined
  // Only version 3 needs no migration (v1 ids are made up while reading, v2 renames a role): else the whole read.
  if (!first?.value || !isHeader(first.value) || first.value.version !== CURRENT_TRANSCRIPT_VERSION) return wholeRead(file, buf)
  const header = first.value

  const entries: Slot[] = []
  for (let i = 1; i < lineCount; i++) {
    const m = PREFIX_RE.exec(buf.toString('latin1', starts[i], Math.min(ends[i], starts[i] + PREFIX_BYTES)))
    if (m && m[1] !== 'session') {
      // A stub stands in for a line not parsed yet; its type is whatever the line says (a newer type is kept too).
      entries.push(stubSlot(m[1], m[2], m[3] ?? null, i))
      continue
    }
    const parsed = parseLine(lineText(i), 0, i + 1, missingFinalNewline && i === lineCount - 1)
    // As buildResult: bad lines, extra headers and objects without a type are not entries.
    if (parsed.value && !isHeader(parsed.value) && isEntry(parsed.value)) entries.push(parsed.value as TranscriptEntry)
  }

  /** The full entry behind a stub; undefined when the line is not a valid entry after all. */
  const resolve = (stub: Stub): TranscriptEntry | undefined => {
    const parsed = parseLine(lineText(stub.at), 0, stub.at + 1, missingFinalNewline && stub.at === lineCount - 1)
    return parsed.value && isEntry(parsed.value) && !isHeader(parsed.value) ? (parsed.value as TranscriptEntry) : undefined
  }
  const walked = contextPath(entries, resolve)
  if (!walked) return wholeRead(file, buf)
  return {header, badHeader: false, missingFinalNewline, entries, path: walked.path, stubs: walked.stubs}
}
