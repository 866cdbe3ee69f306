// The agent's tools with OpenClaw's names and argument shapes; file access is confined to the agent workspace.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'

import {NotRegularFileError, openRegular} from '../os/safe-open.js'

export interface ToolSpec {
  name: string
  description: string
  input_schema: {type: 'object'; properties: Record<string, unknown>; required?: string[]}
}

export interface ToolOutcome {
  text: string
  isError: boolean
  details?: Record<string, unknown>
}

export interface ToolContext {
  workspaceDir: string
  signal?: AbortSignal
}

/** Tool output is capped so one call cannot flood the context (pi's tools cap at about 50 KB). */
export const TOOL_OUTPUT_MAX_CHARS = 50_000
export const READ_DEFAULT_LIMIT = 2000
export const EXEC_DEFAULT_TIMEOUT_S = 60
/** The read tool reads a file whole before slicing lines; past this it is not a text file a model should read. */
export const READ_MAX_BYTES = 64 * 1024 * 1024

const SPECS: Record<string, ToolSpec> = {
  read: {
    name: 'read',
    description: 'Read a text file from the workspace. Use offset/limit (1-based lines) for large files.',
    input_schema: {type: 'object', properties: {path: {type: 'string', description: 'Path relative to the workspace'}, offset: {type: 'number'}, limit: {type: 'number'}}, required: ['path']},
  },
  ls: {
    name: 'ls',
    description: 'List a workspace directory (directories end with "/").',
    input_schema: {type: 'object', properties: {path: {type: 'string', description: 'Directory relative to the workspace (default ".")'}, limit: {type: 'number'}}},
  },
  write: {
    name: 'write',
    description: 'Create or overwrite a file in the workspace.',
    input_schema: {type: 'object', properties: {path: {type: 'string'}, content: {type: 'string'}}, required: ['path', 'content']},
  },
  exec: {
    name: 'exec',
    description: 'Run a shell command in the workspace directory.',
    input_schema: {type: 'object', properties: {command: {type: 'string'}, timeout: {type: 'number', description: 'Seconds'}}, required: ['command']},
  },
}

export interface ToolPolicy {
  write: boolean
  exec: boolean
}

export function toolSpecs(policy: ToolPolicy): ToolSpec[] {
  const out = [SPECS.read, SPECS.ls]
  if (policy.write) out.push(SPECS.write)
  if (policy.exec) out.push(SPECS.exec)
  return out
}

class ToolError extends Error {}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** Symlink hops followed while resolving a would-be path (the kernel's own limit is 40). */
const MAX_LINK_HOPS = 40

/**
 * The real path `abs` would have once created: its longest existing prefix is resolved with lstat probing, so a
 * dangling symlink is followed to its would-be target instead of being mistaken for a missing file (existsSync
 * follows links, and writing through a dangling link creates its target wherever it points).
 */
function wouldBeRealPath(abs: string, hops = 0): string {
  if (hops > MAX_LINK_HOPS) throw new ToolError('Too many levels of symbolic links')
  const tail: string[] = []
  let probe = abs
  let st: fs.Stats | undefined
  for (;;) {
    try {
      st = fs.lstatSync(probe)
      break
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
      const parent = path.dirname(probe)
      if (parent === probe) return abs
      tail.unshift(path.basename(probe))
      probe = parent
    }
  }
  if (st.isSymbolicLink()) {
    let real: string | undefined
    try {
      real = fs.realpathSync(probe)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
    }
    if (real === undefined) {
      // Dangling: continue from where the link points, as the kernel would on create.
      const target = path.resolve(fs.realpathSync(path.dirname(probe)), fs.readlinkSync(probe))
      return wouldBeRealPath(path.join(target, ...tail), hops + 1)
    }
    return path.join(real, ...tail)
  }
  return path.join(fs.realpathSync(probe), ...tail)
}

/**
 * Map a model-supplied path into the workspace. Refused: anything that resolves outside (`..`, absolute paths
 * elsewhere, NUL bytes) and anything whose real path, or for a path that does not exist yet its would-be real path,
 * leaves the workspace through a symlink (dangling ones included). With mustExist false the resolved real path is
 * returned, so the caller can open it with O_NOFOLLOW.
 */
export function confinePath(workspaceDir: string, raw: unknown, {mustExist}: {mustExist: boolean}): string {
  if (typeof raw !== 'string' || raw.includes('\0')) throw new ToolError('path must be a string')
  const root = path.resolve(workspaceDir)
  const realRoot = fs.existsSync(root) ? fs.realpathSync(root) : root
  const given = raw.trim() === '' ? '.' : raw.trim()
  const abs = path.resolve(root, given.startsWith('~') ? `./${given}` : given)
  if (!isInside(root, abs) && !isInside(realRoot, abs)) throw new ToolError(`Access denied: ${raw} is outside the workspace (${root}).`)
  if (mustExist) {
    if (!fs.existsSync(abs)) throw new ToolError(`No such file or directory: ${raw}`)
    const real = fs.realpathSync(abs)
    if (!isInside(realRoot, real)) throw new ToolError(`Access denied: ${raw} resolves outside the workspace (symlink to ${real}).`)
    return abs
  }
  const real = wouldBeRealPath(abs)
  if (!isInside(realRoot, real)) throw new ToolError(`Access denied: ${raw} resolves outside the workspace (symlink to ${real}).`)
  return real
}

function cap(text: string): string {
  if (text.length <= TOOL_OUTPUT_MAX_CHARS) return text
  return `${text.slice(0, TOOL_OUTPUT_MAX_CHARS)}\n\n[Output truncated: showing ${TOOL_OUTPUT_MAX_CHARS} of ${text.length} characters. Use offset/limit to read more.]`
}

async function runRead(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolOutcome> {
  const file = confinePath(ctx.workspaceDir, args.path, {mustExist: true})
  // Opened without blocking and checked on the descriptor: a FIFO would block the read (and the turn) for good, and a
  // device such as /dev/zero would never end.
  let opened: Awaited<ReturnType<typeof openRegular>>
  try {
    opened = await openRegular(file, {what: 'Workspace file'})
  } catch (error) {
    if (error instanceof NotRegularFileError) throw new ToolError(error.kind === 'a directory' ? `${String(args.path)} is a directory; use ls` : `${String(args.path)} is ${error.kind}, not a regular file; only regular files can be read.`)
    throw error
  }
  let text: string
  try {
    if (opened.stat.size > READ_MAX_BYTES) throw new ToolError(`${String(args.path)} is ${opened.stat.size} bytes; the read tool reads files up to ${READ_MAX_BYTES / (1024 * 1024)} MiB.`)
    text = (await opened.fh.readFile()).toString('utf8')
  } finally {
    await opened.fh.close().catch(() => {})
  }
  const lines = text.split('\n')
  const offset = Math.max(1, Math.floor(Number(args.offset) || 1))
  const limit = Math.max(1, Math.floor(Number(args.limit) || READ_DEFAULT_LIMIT))
  if (offset > lines.length) throw new ToolError(`offset ${offset} is beyond the end of the file (${lines.length} lines)`)
  let out = lines.slice(offset - 1, offset - 1 + limit).join('\n')
  const rest = lines.length - (offset - 1 + limit)
  if (rest > 0) out += `\n\n[${rest} more lines. Use offset=${offset + limit} to continue.]`
  return {text: cap(out), isError: false}
}

async function runLs(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolOutcome> {
  const dir = confinePath(ctx.workspaceDir, args.path ?? '.', {mustExist: true})
  const entries = await fsp.readdir(dir, {withFileTypes: true})
  const limit = Math.max(1, Math.floor(Number(args.limit) || 500))
  const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))
  let out = names.slice(0, limit).join('\n') || '(empty directory)'
  if (names.length > limit) out += `\n\n[${names.length - limit} more entries not shown]`
  return {text: out, isError: false}
}

async function runWrite(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolOutcome> {
  if (typeof args.content !== 'string') throw new ToolError('content must be a string')
  const file = confinePath(ctx.workspaceDir, args.path, {mustExist: false})
  await fsp.mkdir(path.dirname(file), {recursive: true})
  // Re-check after mkdir: a racing symlink swap must not redirect the write.
  if (confinePath(ctx.workspaceDir, args.path, {mustExist: false}) !== file) throw new ToolError(`Access denied: ${String(args.path)} changed while it was being written.`)
  // `file` is a real path; O_NOFOLLOW refuses a symlink planted at the last component since the check.
  // O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader for good (with one, fstat refuses it).
  let fh: fsp.FileHandle
  try {
    ;({fh} = await openRegular(file, {what: 'Workspace file'}, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, 0o666))
  } catch (error) {
    if (error instanceof NotRegularFileError) throw new ToolError(`${String(args.path)} is ${error.kind}, not a regular file; only regular files can be written.`)
    throw error
  }
  try {
    await fh.writeFile(args.content)
  } finally {
    await fh.close()
  }
  return {text: `Successfully wrote ${Buffer.byteLength(args.content)} bytes to ${String(args.path)}`, isError: false}
}

/** How long output may keep arriving after the shell exits (a background job holding the pipe gets no more). */
export const EXEC_DRAIN_GRACE_MS = 200

/**
 * The shell runs in its own process group so a timeout or abort can kill everything it started (pipelines,
 * background jobs), not just /bin/sh. The result is settled on the shell's exit plus a short drain: a background job
 * that keeps stdout open must not hold the turn (and its transcript lock) hostage. Such a job keeps running after a
 * normal exit (the model may have started a server on purpose), but it loses its output pipe.
 */
function runExec(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolOutcome> {
  if (typeof args.command !== 'string' || !args.command.trim()) throw new ToolError('command must be a non-empty string')
  const command = args.command
  const timeoutS = Number(args.timeout) > 0 ? Number(args.timeout) : EXEC_DEFAULT_TIMEOUT_S
  const started = Date.now()
  if (ctx.signal?.aborted) return Promise.resolve({text: 'Tool execution aborted.', isError: true, details: {status: 'failed', durationMs: 0, cwd: ctx.workspaceDir}})
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], {cwd: ctx.workspaceDir, stdio: ['ignore', 'pipe', 'pipe'], detached: true})
    let output = ''
    let killedBy: 'timeout' | 'abort' | undefined
    let settled = false
    const onData = (d: Buffer) => {
      if (output.length < TOOL_OUTPUT_MAX_CHARS * 2) output += d.toString('utf8')
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    const killGroup = () => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // The group is already gone.
      }
    }
    const onAbort = () => {
      killedBy ??= 'abort'
      killGroup()
    }
    const timer = setTimeout(() => {
      killedBy ??= 'timeout'
      killGroup()
    }, timeoutS * 1000)
    ctx.signal?.addEventListener('abort', onAbort)
    const cleanup = () => {
      clearTimeout(timer)
      ctx.signal?.removeEventListener('abort', onAbort)
      child.stdout.destroy()
      child.stderr.destroy()
      child.unref()
    }
    child.on('error', (error) => {
      if (settled) return
      settled = true
      cleanup()
      resolve({text: `exec failed: ${error.message}`, isError: true, details: {status: 'failed', durationMs: Date.now() - started, cwd: ctx.workspaceDir}})
    })
    child.on('exit', (code, signal) => {
      const finish = () => {
        if (settled) return
        settled = true
        clearTimeout(grace)
        // After a timeout/abort nothing of the group may survive, even a job that ignored the first kill.
        if (killedBy) killGroup()
        cleanup()
        const text = cap(output.trimEnd()) || '(no output)'
        const failed = code !== 0 || killedBy !== undefined
        const why = killedBy === 'timeout' ? `Command timed out after ${timeoutS} seconds and was killed` : killedBy === 'abort' ? 'Command aborted' : `Command exited with ${code === null ? `signal ${signal}` : `code ${code}`}`
        resolve({
          text: failed ? `${text}\n\n(${why})` : text,
          isError: failed,
          details: {status: failed ? 'failed' : 'completed', exitCode: code, ...(killedBy ? {killed: killedBy} : {}), durationMs: Date.now() - started, aggregated: output.trimEnd(), cwd: ctx.workspaceDir},
        })
      }
      // 'close' comes once every pipe is drained; a background job holding a pipe only gets the grace period.
      const grace = setTimeout(finish, EXEC_DRAIN_GRACE_MS)
      child.once('close', finish)
    })
  })
}

const RUNNERS: Record<string, (ctx: ToolContext, args: Record<string, unknown>) => Promise<ToolOutcome>> = {read: runRead, ls: runLs, write: runWrite, exec: runExec}

/** Run one tool call. Every failure becomes a tool error result for the model; nothing here throws. */
export async function runTool(name: string, args: unknown, ctx: ToolContext, policy: ToolPolicy): Promise<ToolOutcome> {
  const enabled = name === 'read' || name === 'ls' || (name === 'write' && policy.write) || (name === 'exec' && policy.exec)
  if (!enabled || !RUNNERS[name]) {
    const hint = name === 'write' || name === 'exec' ? ` It is disabled; enable it with --allow-${name}.` : ''
    return {text: `Tool ${name} is not available.${hint}`, isError: true}
  }
  const input = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
  try {
    return await RUNNERS[name](ctx, input)
  } catch (error) {
    const e = error as NodeJS.ErrnoException
    const msg = error instanceof ToolError ? e.message : e.code === 'ENOENT' ? `No such file or directory: ${String(input.path)}` : e.message
    return {text: msg, isError: true}
  }
}
