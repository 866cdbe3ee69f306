// Test support: `clawkit mcp` driven by the official SDK's own client (what Claude Desktop and Claude Code use), over
// the stdio of a real child process, and the same server spoken to line by line for what a client never sends.
import {spawn} from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {expect} from 'vitest'

import {BIN, ROOT} from './cli.js'

export interface McpSession {
  client: Client
  stderr(): string
  close(): Promise<void>
}

/** `clawkit mcp <args>` with an SDK client connected (initialized: the handshake is done). */
export async function connectMcp(args: string[], env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', ...args], env, cwd: ROOT, stderr: 'pipe'})
  let err = ''
  transport.stderr?.on('data', (d: Buffer) => (err += String(d)))
  const client = new Client({name: 'clawkit-tests', version: '1.0.0'})
  await client.connect(transport)
  return {client, stderr: () => err, close: () => client.close()}
}

/** A tool call's structured result; a failed call (isError) throws with its text. */
export async function call(s: McpSession, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await s.client.callTool({name, arguments: args})
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`)
  // The text content is the same JSON, for clients that read only text.
  expect(JSON.parse((r.content as {text: string}[])[0].text)).toEqual(r.structuredContent)
  return r.structuredContent
}

/** A failed call's error envelope (the --json error document). */
export async function callError(s: McpSession, name: string, args: Record<string, unknown> = {}): Promise<{code: string; message: string; exitCode: number; suggestions?: string[]}> {
  const r = await s.client.callTool({name, arguments: args})
  if (!r.isError) throw new Error(`${name} did not fail: ${JSON.stringify(r.structuredContent).slice(0, 500)}`)
  return JSON.parse((r.content as {text: string}[])[0].text).error
}

/** `clawkit mcp <args>` spoken to in raw lines: send one, get the next line it answers. */
export function rawMcp(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], {cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe']})
  const lines: string[] = []
  const waiters: (() => void)[] = []
  let partial = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    const parts = (partial + d).split('\n')
    partial = parts.pop()!
    lines.push(...parts)
    for (const w of waiters.splice(0)) w()
  })
  let read = 0
  return {
    child,
    send: (line: string) => child.stdin.write(`${line}\n`),
    /** The next line written on stdout, parsed. */
    async next(timeoutMs = 20_000): Promise<any> {
      const deadline = Date.now() + timeoutMs
      while (read >= lines.length) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no answer (exit ${child.exitCode})`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 200)
        })
      }
      return JSON.parse(lines[read++])
    },
    async end(): Promise<number | null> {
      child.stdin.end()
      return new Promise((resolve) => (child.exitCode === null ? child.on('close', resolve) : resolve(child.exitCode)))
    },
  }
}

/**
 * Every file under `dir`: its sha256, size and mtime, for "nothing was written, not even rewritten the same". `skip`
 * leaves files out by path and size (a SQLite reader's traces).
 */
export function treeHash(dir: string, skip: (rel: string, size: number) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) {
        const rel = path.relative(dir, p)
        const data = fs.readFileSync(p)
        if (!skip(rel, data.length)) out[rel] = `${crypto.createHash('sha256').update(data).digest('hex')} ${data.length} ${fs.statSync(p).mtimeMs}`
      }
    }
  }
  walk(dir)
  return out
}
