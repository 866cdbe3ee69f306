// The system prompt: a short clawkit preamble plus the workspace bootstrap files, capped as OpenClaw caps them.
import path from 'node:path'

import {readRegularFileSync} from '../os/safe-open.js'

export const BOOTSTRAP_FILES = ['AGENTS.md', 'SOUL.md', 'TOOLS.md', 'IDENTITY.md', 'USER.md'] as const
export const BOOTSTRAP_MAX_CHARS = 12_000
export const BOOTSTRAP_TOTAL_MAX_CHARS = 60_000
/** Only the first BOOTSTRAP_MAX_CHARS are injected; a bootstrap file far larger than that is skipped, not read whole. */
const BOOTSTRAP_READ_MAX_BYTES = 16 * 1024 * 1024

export interface InjectedFile {
  name: string
  path: string
  rawChars: number
  injectedChars: number
  truncated: boolean
}

/** OpenClaw keeps the head (70 %) and the tail (20 %) of an oversized file with a marker between them. */
export function capText(text: string, max: number): {text: string; truncated: boolean} {
  if (text.length <= max) return {text, truncated: false}
  if (max <= 0) return {text: '', truncated: true}
  const head = Math.floor(max * 0.7)
  const tail = Math.floor(max * 0.2)
  const marker = `\n[... ${text.length - head - tail} characters truncated ...]\n`
  return {text: text.slice(0, head) + marker + text.slice(text.length - tail), truncated: true}
}

export function loadBootstrapFiles(workspaceDir: string): {files: InjectedFile[]; sections: string[]} {
  const files: InjectedFile[] = []
  const sections: string[] = []
  let budget = BOOTSTRAP_TOTAL_MAX_CHARS
  for (const name of BOOTSTRAP_FILES) {
    const file = path.join(workspaceDir, name)
    let raw: string
    try {
      // A FIFO named AGENTS.md would block this synchronous read, and the whole turn, for good; a device would never end.
      raw = readRegularFileSync(file, {what: 'Workspace file', maxBytes: BOOTSTRAP_READ_MAX_BYTES}).toString('utf8')
    } catch {
      continue
    }
    const capped = capText(raw, Math.min(BOOTSTRAP_MAX_CHARS, budget))
    budget -= capped.text.length
    files.push({name, path: file, rawChars: raw.length, injectedChars: capped.text.length, truncated: capped.truncated})
    if (capped.text) sections.push(`## ${file}\n\n${capped.text}`)
  }
  return {files, sections}
}

export function buildSystemPrompt(opts: {workspaceDir: string; toolNames: string[]; now?: Date}): {prompt: string; files: InjectedFile[]} {
  const {files, sections} = loadBootstrapFiles(opts.workspaceDir)
  const lines = [
    'You are a personal assistant running inside clawkit, an OpenClaw-compatible command-line agent.',
    '## Tooling',
    `Tools available: ${opts.toolNames.join(', ')}. Paths are relative to the workspace; files outside it cannot be accessed.`,
    '## Workspace',
    `Your working directory is: ${opts.workspaceDir}`,
    `## Current Date & Time\n${(opts.now ?? new Date()).toISOString()}`,
  ]
  if (sections.length > 0) {
    lines.push('# Project Context', 'The following project context files have been loaded:', ...sections)
  }
  return {prompt: lines.join('\n'), files}
}
