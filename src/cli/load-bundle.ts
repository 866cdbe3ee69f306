// Loads the CommonJS bundle dist/cli.cjs through V8's code cache, written at exit so that it holds the functions the run
// compiled.
//
// Why: loading the 1.1 MB bundle took ~75 ms of every start on Node 20, most of it compiling; with a cache V8
// deserializes the compiled functions instead (~45 ms, BENCHMARKS.md). Node 22+ has a compile cache of its own
// (`module.enableCompileCache()`, which boot.ts turns on for everything else), but it stores a module's code as
// compiled before it runs: the top level only, not the functions compiled later. On Node 24 this loader starts the
// bundle 16 ms sooner than Node's cache and lists 10 000 sessions 27 ms sooner, so it is used on every version.
// The cache lives in clawkit's own env-paths cache dir, created 0700: never in a shared temp dir, where another user
// could plant code (and a dir others can write to is not used). It is keyed by the bundle file's identity and the
// runtime (Node version, flags); V8 also rejects a cache made by another V8 or with other flags. Any failure only costs
// speed.
import {isAscii} from 'node:buffer'
import fs from 'node:fs'
import Module, {createRequire} from 'node:module'
import path from 'node:path'
import vm from 'node:vm'

/** What happened to the cache on this load (tests read it). */
export type CodeCacheUse = 'off' | 'hit' | 'miss' | 'rejected'

export interface LoadedBundle<T> {
  exports: T
  cache: CodeCacheUse
}

interface InternalModule {
  _nodeModulePaths(dir: string): string[]
  _cache: Record<string, unknown>
}

export interface LoadOptions {
  /**
   * The command the arguments name (boot.ts finds it as oclif will), whose cache is read; without one, or before it has
   * one, the start cache (START_CACHE).
   */
  name?: string
  /**
   * Called at exit: `name` if this run ran that command to its end, else undefined. V8 compiles a function only when it
   * first runs, so a cache holds the code of the run that wrote it (and of the cache that run read).
   */
  ranName?: () => string | undefined
}

/**
 * The cache of a run that names no command (`--version`, help), and the one a command without a cache of its own yet
 * starts from: oclif and the bundle's top level.
 */
export const START_CACHE = 'start'

/** A name a cache file may have: a command id or alias (`sessions:list`), never anything that could make a path. */
const CACHE_NAME = /^[a-z][a-z0-9-]*(?::[a-z][a-z0-9-]*){0,2}$/

/**
 * Module's wrapper plus `__ckImporter`: a vm.Script cannot import() by itself without an experimental option, and not
 * at all once it comes from the cache, so scripts/bundle.js routes the bundle's import()s here. scripts/bundle.js
 * writes dist/cli.cjs already wrapped (a script whose value is this function, not a module): wrapping 1.5 MB at load
 * made V8 copy it once more into one flat string, ~480 more pages touched at every start (BENCHMARKS.md). A file
 * without it (any other CommonJS module) is wrapped here.
 */
export const BUNDLE_WRAPPER = ['(function (exports, require, module, __filename, __dirname, __ckImporter) { ', '\n});'] as const

export function loadBundle<T>(input: string, cacheDir: string | undefined, opts: LoadOptions = {}): LoadedBundle<T> {
  const require = createRequire(input)
  // The path require() itself would use (symlinks resolved unless --preserve-symlinks), so that oclif's require() of
  // the bundle finds the module registered below instead of loading a second copy.
  const file = require.resolve(input)
  const usable = cacheDir !== undefined && privateDir(cacheDir)
  // Decoded as Latin-1 when it is ASCII, which scripts/bundle.js makes it: the same string, made by a copy, where
  // UTF-8 decoding took ~3-5 ms of every start. (Any non-ASCII character also made the whole 1.1 MB a two-byte string.)
  const bytes = fs.readFileSync(file)
  const prewrapped = bytes.subarray(0, BUNDLE_WRAPPER[0].length).toString('latin1') === BUNDLE_WRAPPER[0]
  if (!usable && !prewrapped) return {exports: require(file) as T, cache: 'off'}
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')
  const source = prewrapped ? text : `${BUNDLE_WRAPPER[0]}${text}${BUNDLE_WRAPPER[1]}`
  if (!usable) return {exports: runWrapped<T>(new vm.Script(source, {filename: file}), file, require), cache: 'off'}

  // Keyed by the file's identity, not a hash of its 1.1 MB (hashing cost ~4 ms of every start): a rebuild or a new
  // install changes the change time, which nothing can set back, even where npm pins every file's mtime to 1985. The
  // runtime part (Node version, V8 flags) keeps a cache per way of running, so that runs with and without, say,
  // --max-old-space-size do not reject and rewrite each other's cache every time.
  const st = fs.statSync(file, {bigint: true})
  const fileKey = digest([st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs])
  const runtimeKey = digest([process.version, process.arch, ...process.execArgv, process.env.NODE_OPTIONS ?? ''])
  const name = path.basename(file)
  // One cache per command: V8 deserializes all of a cache at load, so one holding every command's code (as an earlier
  // layout did) made each start pay for the others' (`sessions list` 0.94x with its own 0.8 MB cache against a 1.3 MB
  // one of 13 commands, BENCHMARKS.md). The price is a file of ~0.7-0.9 MB per command used, in the cache dir.
  const cacheFile = (cacheName: string) => path.join(cacheDir, `${name}-${fileKey}-${runtimeKey}-${cacheName.replaceAll(':', '.')}.v8`)
  let cachedData: Buffer | undefined
  let read: string | undefined
  const own = opts.name !== undefined && CACHE_NAME.test(opts.name) ? opts.name : undefined
  for (const candidate of own === undefined ? [START_CACHE] : [own, START_CACHE]) {
    try {
      cachedData = fs.readFileSync(cacheFile(candidate))
      read = candidate
      break
    } catch {
      // No such cache (or unreadable): the next name, else compile from source and write one at exit.
    }
  }
  const script = new vm.Script(source, {
    filename: file,
    cachedData,
  })
  const exports = runWrapped<T>(script, file, require)
  const cache: CodeCacheUse = cachedData === undefined ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit'
  const isEarlierBuild = (other: string) => other.startsWith(`${name}-`) && !other.startsWith(`${name}-${fileKey}-`)
  // No cache at all (a new build): the bundle's top level, compiled now, is the start cache until a run that names no
  // command writes a fuller one, so that each command's first run compiles only what start-up did not (written before
  // the command runs, it holds no command's code).
  if (cache === 'miss' && own !== undefined) writeCache(cacheFile(START_CACHE), script, isEarlierBuild)
  // At exit, so that the cache also holds the functions this run compiled lazily (the command's own code).
  process.once('exit', () => {
    const ran = opts.ranName?.()
    // A run that names no command (`--version`, help) writes the start cache when it read none. A command's run that
    // stopped early (a bad flag, an unknown command) writes nothing: its cache would hold too little of its code, and
    // the start cache must hold no command's, since a cache holds all a run had, what it read included: each command's
    // cache is start-up's code and its own.
    const target = ran !== undefined && ran === own ? own : opts.name === undefined && cache !== 'hit' ? START_CACHE : undefined
    // A cache V8 refused (another V8 wrote it, or it is damaged) is not read again by every run that falls back to it.
    if (cache === 'rejected' && read !== undefined && read !== target) removeQuietly(cacheFile(read))
    if (target === undefined || (target === read && cache === 'hit')) return
    writeCache(cacheFile(target), script, isEarlierBuild)
  })
  return {exports, cache}
}

/** Runs the wrapped bundle as the Module require() would build, registered first, so oclif's require() of the file returns it. */
function runWrapped<T>(script: vm.Script, file: string, require: NodeJS.Require): T {
  const internal = Module as unknown as InternalModule
  const mod = new Module(file) as Module & {filename: string; paths: string[]; loaded: boolean}
  mod.filename = file
  mod.paths = internal._nodeModulePaths(path.dirname(file))
  internal._cache[file] = mod
  try {
    const fn = script.runInThisContext()
    if (typeof fn !== 'function') throw new Error(`${file} is not a bundle (it does not evaluate to its wrapper function)`)
    ;(fn as (...a: unknown[]) => void).call(mod.exports, mod.exports, require, mod, file, path.dirname(file), importer)
  } catch (error) {
    delete internal._cache[file]
    throw error
  }
  mod.loaded = true
  return mod.exports as T
}

/** import() from an ES module: absolute file URLs and `node:` built-ins, which is all the bundle imports. */
const importer = (specifier: string): Promise<unknown> => import(specifier)

/**
 * 64-bit FNV-1a of the parts, as 16 hex digits. Not node:crypto: loading it cost ~3 ms of every start, and read commands
 * need nothing else from it. A name only has to tell this user's own builds and runtimes apart (the dir is private).
 */
function digest(parts: unknown[]): string {
  const text = parts.join('\0')
  let h = 0xcbf29ce484222325n
  for (let i = 0; i < text.length; i++) h = ((h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n) & 0xffffffffffffffffn
  return h.toString(16).padStart(16, '0')
}

/**
 * Whether a cache dir can be trusted with code: ours and writable by nobody else. A missing dir is fine (writeCache
 * creates it 0700); a dir another user could write to (CLAWKIT_CACHE_DIR or XDG_CACHE_HOME pointed somewhere shared)
 * is not used at all, since whoever can write there could plant compiled code.
 */
export function privateDir(dir: string): boolean {
  let st: fs.Stats
  try {
    st = fs.statSync(dir)
  } catch {
    return true
  }
  const uid = process.getuid?.()
  return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0
}

function writeCache(file: string, script: vm.Script, isEarlierBuild: (name: string) => boolean): void {
  const dir = path.dirname(file)
  const tmp = `${file}.${process.pid}.tmp`
  try {
    fs.mkdirSync(dir, {recursive: true, mode: 0o700})
    fs.writeFileSync(tmp, script.createCachedData(), {mode: 0o600})
    // Atomic: a concurrent start reads the old cache or the new one, never half of one.
    fs.renameSync(tmp, file)
    // Caches of earlier builds are dead weight (0.7-0.9 MB each); caches of this build for other runtimes stay. (`.names`
    // files were the names of an earlier layout.)
    for (const name of fs.readdirSync(dir)) if ((name.endsWith('.v8') || name.endsWith('.v8.names')) && isEarlierBuild(name)) fs.rmSync(path.join(dir, name), {force: true})
  } catch {
    removeQuietly(tmp)
  }
}

function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, {force: true})
  } catch {}
}
