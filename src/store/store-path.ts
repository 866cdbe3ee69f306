// Where an agent's JSON-era index lives: OpenClaw's `session.store` setting or the per-agent default
// (OpenClawState.storeRef asks it; the config only supplies the setting).
import fs from 'node:fs'
import path from 'node:path'

import {normalizeAgentId} from '../config/agent-id.js'
import type {OpenClawConfig} from '../config/config.js'
import {type Env, resolveUserPath} from '../config/paths.js'
import {UsageError} from '../errors.js'

export function sessionsDirFor(stateDir: string, agentId: string): string {
  return path.join(stateDir, 'agents', normalizeAgentId(agentId), 'sessions')
}

/** `session.store` with `{agentId}` templating and `~` expansion, else the per-agent default (§1.5). */
export function resolveStorePath(stateDir: string, config: OpenClawConfig, agentId: string, env: Env = process.env): string {
  const id = normalizeAgentId(agentId)
  const configured = typeof config.session?.store === 'string' ? config.session.store.trim() : ''
  if (!configured) return path.join(sessionsDirFor(stateDir, id), 'sessions.json')
  const expanded = configured.includes('{agentId}') ? configured.replaceAll('{agentId}', id) : configured
  return resolveUserPath(expanded, env)
}

/** An explicit --store names one file: a missing one is a typo, not an empty store. */
export function requireStoreFile(file: string): string {
  let st: fs.Stats
  try {
    st = fs.statSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
    throw new UsageError(`Session store not found: ${file} (--store). Check the path; a store is an agent's sessions.json.`, 'E_STORE_NOT_FOUND')
  }
  if (st.isDirectory()) throw new UsageError(`Session store is a directory: ${file} (--store). Name its sessions.json.`, 'E_STORE_NOT_FOUND')
  return file
}
