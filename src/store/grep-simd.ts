// A WebAssembly SIMD candidate finder for the raw-line prefilter (grep.ts): 16 bytes at a time, it compares two bytes
// of a needle at their distance (each folded to lower case when the search ignores case and the byte is a letter), the
// way SIMD substring searchers do, and returns the first position where both agree. The caller verifies the whole
// needle there. One pass over the block whatever the case variants: Buffer.indexOf needs a pass per variant (eight for
// a three-letter case-insensitive anchor), ~4x slower on a 1 GiB store. The block is read straight into the module's
// memory, so nothing is copied to search it. The module is a few hundred bytes, assembled here (no toolchain needed);
// where WebAssembly SIMD is missing (it is in every Node this CLI supports), grep.ts's Buffer.indexOf path is used.

// The lib settings here carry no WebAssembly types (no DOM lib; @types/node 20 leaves them out): the few used, declared.
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}
interface WasmModule {
  readonly kind?: 'module'
}
interface Wasm {
  validate(bytes: Uint8Array): boolean
  Module: new (bytes: Uint8Array) => WasmModule
  Memory: new (d: {initial: number}) => WasmMemory
  Instance: new (m: WasmModule, imports: Record<string, Record<string, unknown>>) => {exports: Record<string, unknown>}
}
const WebAssembly = (globalThis as {WebAssembly?: Wasm}).WebAssembly

const leb = (n: number): number[] => {
  const out: number[] = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n) b |= 0x80
    out.push(b)
  } while (n)
  return out
}
const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes]
const name = (s: string) => [s.length, ...[...s].map((c) => c.charCodeAt(0))]

/**
 * find(at, limit, dist, c1, c2, f1, f2) -> i32: the first p >= at, p < limit + 15, with (mem[p] | f1) == c1 and
 * (mem[p + dist] | f2) == c2, or -1 when none is below limit (a result >= limit is no match either: the last vector
 * looks past it). Reads up to dist + 15 bytes past limit: the caller leaves that much slack.
 */
function moduleBytes(): Uint8Array {
  const V = 0xfd // SIMD prefix
  const body = [
    0x01, 0x05, 0x7b, // five v128 locals: 7 splat(c1), 8 splat(c2), 9 splat(f1), 10 splat(f2), 11 mask
    0x20, 3, V, 0x0f, 0x21, 7,
    0x20, 4, V, 0x0f, 0x21, 8,
    0x20, 5, V, 0x0f, 0x21, 9,
    0x20, 6, V, 0x0f, 0x21, 10,
    0x02, 0x40, 0x03, 0x40, // block loop
    0x20, 0, 0x20, 1, 0x4f, 0x0d, 1, // at >= limit: leave
    0x20, 0, V, 0x00, 0x00, 0x00, 0x20, 9, V, 0x50, 0x20, 7, V, 0x23, // (load(at) | f1) == c1
    0x20, 0, 0x20, 2, 0x6a, V, 0x00, 0x00, 0x00, 0x20, 10, V, 0x50, 0x20, 8, V, 0x23, // (load(at + dist) | f2) == c2
    V, 0x4e, 0x22, 11, V, 0x53, // and; any_true
    0x04, 0x40, 0x20, 0, 0x20, 11, V, 0x64, 0x68, 0x6a, 0x0f, 0x0b, // if: return at + ctz(bitmask)
    0x20, 0, 0x41, 16, 0x6a, 0x21, 0, 0x0c, 0, // at += 16; continue
    0x0b, 0x0b,
    0x41, 0x7f, // -1
    0x0b,
  ]
  const I32 = 0x7f
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 7, I32, I32, I32, I32, I32, I32, I32, 1, I32]),
    ...section(2, [1, ...name('e'), ...name('m'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('f'), 0x00, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ])
}

type Find = (at: number, limit: number, dist: number, c1: number, c2: number, f1: number, f2: number) => number

let compiled: WasmModule | null | undefined

/** The compiled module, or null where WebAssembly SIMD is unavailable (or CLAWKIT_NO_SIMD is set, to test the fallback). */
function simdModule(): WasmModule | null {
  if (compiled !== undefined) return compiled
  compiled = null
  try {
    const bytes = moduleBytes()
    if (!process.env.CLAWKIT_NO_SIMD && WebAssembly && WebAssembly.validate(bytes)) compiled = new WebAssembly.Module(bytes)
  } catch {
    compiled = null
  }
  return compiled
}

const PAGE = 65_536

/** A block of memory the finder searches in place; `bytes` is a Buffer view of it, renewed when the memory grows. */
export class SimdBlock {
  bytes: Buffer
  readonly find: Find
  private readonly memory: WasmMemory

  private constructor(module: WasmModule, size: number) {
    this.memory = new WebAssembly!.Memory({initial: Math.ceil(size / PAGE)})
    this.find = new WebAssembly!.Instance(module, {e: {m: this.memory}}).exports.f as Find
    this.bytes = Buffer.from(this.memory.buffer)
  }

  /** A block of at least `size` bytes, or undefined without SIMD. */
  static create(size: number): SimdBlock | undefined {
    const m = simdModule()
    return m ? new SimdBlock(m, size) : undefined
  }

  /** Grow to at least `size` bytes; the contents stay. */
  grow(size: number): void {
    const have = this.memory.buffer.byteLength
    if (size <= have) return
    this.memory.grow(Math.ceil((size - have) / PAGE))
    this.bytes = Buffer.from(this.memory.buffer)
  }
}
