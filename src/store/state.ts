// One resolved OpenClaw state dir: where it is and why, its config, its agents and their session stores.
import fs from 'node:fs'
import path from 'node:path'

import {normalizeAgentId} from '../config/agent-id.js'
import {
  ConfigError,
  listAllAgentIds,
  listConfiguredAgentIds,
  type LoadedConfig,
  loadConfig,
  type OpenClawConfig,
  resolveDefaultAgentId,
} from '../config/config.js'
import {type Env, resolveStateDir, resolveUserPath, type StateDirSource} from '../config/paths.js'
import {UsageError} from '../errors.js'
import {configSecrets, registerSecrets} from '../text/redact.js'
import {clawkitDirs, loadSettings} from '../settings.js'
import {assertNoOrphanWal, findSqliteStore} from './era.js'
import {isWithin, realLocation} from './fs-util.js'
import {loadSqlite} from './sqlite/driver.js'
import {FileSessionStore} from './file/store.js'
import {SqliteSessionStore} from './sqlite/store.js'
import {resolveStorePath} from './store-path.js'
import type {SessionReader, SessionStore, StoreRef} from './types.js'
import {assertNoGatewayOwner} from './sqlite/ownership.js'

export interface OpenStateOptions {
  stateDir?: string
  profile?: string
  dev?: boolean
  env?: Env
  /** Skip clawkit's own settings file (tests, library use). */
  ignoreSettings?: boolean
  /** Keep going with an empty config when openclaw.json is invalid (doctor and status, like OpenClaw's). */
  tolerateConfigError?: boolean
  /**
   * The store of each agent, instead of the one its era on disk gives (tests run the sessions, agent and channel cores
   * on MemorySessionStore this way; a shared-database backend would plug in here). Called once per store path.
   */
  storeFactory?: (ref: StoreRef) => SessionStore
}

/**
 * A state dir as the reading cores (list rows, history, lineage, export, usage, search) see it: its config, its agents
 * and each agent's store as a SessionReader. OpenClawState is one; so is each host of the fleet replica
 * (fleet/state.ts FleetHostState), whose stores have no writes, so a writing core cannot be handed one.
 */
export interface ReadableState {
  /** Where the state is: its directory (a host of the replica: `pg:<host>`). */
  readonly stateDir: string
  readonly config: OpenClawConfig
  /** The agent a command works on when none is named. */
  readonly activeAgentId: string
  /** Fails when a state dir the user named does not exist. */
  requireStateDir(): void
  /** Every agent there is (configured or found). */
  allAgentIds(): string[]
  /** A user-supplied agent id, validated against allAgentIds (a usage error otherwise). */
  requireAgent(raw: string): string
  /** Where the agent's sessions are read from (its database in the SQLite era, else its sessions.json). */
  sessionStoreRef(agentId: string): StoreRef
  /** Whether `p` lands inside the state dir once every link is followed (an export must not). */
  contains(p: string): boolean
  /** Whether a ref names a SQLite-era store (rows are then built the SQLite era's way). */
  isSqliteRef(ref: StoreRef): boolean
  store(agentId: string): SessionReader
  storeFor(ref: StoreRef): SessionReader
}

/** Whether `p` lands inside `dir`, by the paths as given or once every link is followed (its missing tail included). */
export function insideDir(dir: string, p: string): boolean {
  return isWithin(path.resolve(dir), path.resolve(p)) || isWithin(realLocation(dir), realLocation(p))
}

export class OpenClawState implements ReadableState {
  readonly stateDir: string
  readonly stateDirSource: StateDirSource | 'clawkit-settings'
  readonly stateDirReason: string
  readonly configPath: string
  readonly configExists: boolean
  readonly config: OpenClawConfig
  readonly env: Env
  /** Agent from clawkit's settings, used when a command gets no --agent. */
  readonly preferredAgent?: string
  /** Set when the config was invalid and `tolerateConfigError` let the state open with an empty config. */
  readonly configError?: ConfigError
  private readonly storeFactory?: (ref: StoreRef) => SessionStore

  constructor(opts: {stateDir: string; source: OpenClawState['stateDirSource']; reason: string; loaded: LoadedConfig; env: Env; preferredAgent?: string; configError?: ConfigError; storeFactory?: (ref: StoreRef) => SessionStore}) {
    this.stateDir = opts.stateDir
    this.stateDirSource = opts.source
    this.stateDirReason = opts.reason
    this.configPath = opts.loaded.path
    this.configExists = opts.loaded.exists
    this.config = opts.loaded.config
    this.env = opts.env
    this.preferredAgent = opts.preferredAgent
    this.configError = opts.configError
    this.storeFactory = opts.storeFactory
  }

  static open(opts: OpenStateOptions = {}): OpenClawState {
    let env = opts.env ?? process.env
    // Like OpenClaw's CLI, --profile/--dev set OPENCLAW_PROFILE unless it is set already (it picks the workspace).
    const flagProfile = opts.dev ? 'dev' : opts.profile
    if (flagProfile && !env.OPENCLAW_PROFILE?.trim()) env = {...env, OPENCLAW_PROFILE: flagProfile}
    const settings = opts.ignoreSettings ? {} : loadSettings(env)
    let resolved = resolveStateDir({stateDir: opts.stateDir, profile: opts.profile, dev: opts.dev, env})
    let source: OpenClawState['stateDirSource'] = resolved.source
    // clawkit's settings only fill in where OpenClaw would fall back to its default home directory.
    if (settings.stateDir && (resolved.source === 'default' || resolved.source === 'default-missing' || resolved.source === 'legacy')) {
      resolved = {stateDir: resolveUserPath(settings.stateDir, env), source: 'default', reason: 'clawkit settings (stateDir)'}
      source = 'clawkit-settings'
    }
    let loaded: LoadedConfig
    let configError: ConfigError | undefined
    try {
      loaded = loadConfig(resolved.stateDir, env)
    } catch (error) {
      if (!opts.tolerateConfigError || !(error instanceof ConfigError)) throw error
      configError = error
      loaded = {path: error.path, exists: true, config: {}}
    }
    // Every credential in the config is known to the redaction of error output from here on, whoever echoes it.
    registerSecrets(configSecrets(loaded.config))
    return new OpenClawState({stateDir: resolved.stateDir, source, reason: resolved.reason, loaded, env, preferredAgent: settings.agent ? normalizeAgentId(settings.agent) : undefined, configError, storeFactory: opts.storeFactory})
  }

  /** True when the user named the state dir (flag, env, profile, clawkit settings) rather than OpenClaw's default. */
  get stateDirNamed(): boolean {
    return this.stateDirSource !== 'default' && this.stateDirSource !== 'legacy' && this.stateDirSource !== 'default-missing'
  }

  /**
   * A named state dir must exist: a typo in --state-dir or --profile would otherwise read as "no sessions". OpenClaw's
   * default dir, when nothing was named, may be missing (nothing has run yet) and stays quiet.
   */
  requireStateDir(): void {
    if (!this.stateDirNamed) return
    let st: fs.Stats
    try {
      st = fs.statSync(this.stateDir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error
      throw new UsageError(`State directory not found: ${this.stateDir} (from ${this.stateDirReason}). Check the path, or run OpenClaw once to create it.`, 'E_STATE_DIR_NOT_FOUND')
    }
    if (!st.isDirectory()) throw new UsageError(`State directory is not a directory: ${this.stateDir} (from ${this.stateDirReason}).`, 'E_STATE_DIR_NOT_FOUND')
  }

  /**
   * Whether `p` lands inside the state dir once every link is followed (its missing tail included): an output written
   * there would be taken by OpenClaw for part of its store, or replace one of its files.
   */
  contains(p: string): boolean {
    return insideDir(this.stateDir, p)
  }

  get defaultAgentId(): string {
    return resolveDefaultAgentId(this.config)
  }

  /** The agent a command works on when none is named: clawkit settings, else OpenClaw's default agent. */
  get activeAgentId(): string {
    return this.preferredAgent ?? this.defaultAgentId
  }

  configuredAgentIds(): string[] {
    return listConfiguredAgentIds(this.config)
  }

  /** Configured agents plus any found under `<stateDir>/agents`. */
  allAgentIds(): string[] {
    return listAllAgentIds(this.stateDir, this.config)
  }

  /** Validate a user-supplied agent id against configured and on-disk agents (OpenClaw's message). */
  requireAgent(raw: string): string {
    const id = normalizeAgentId(raw)
    if (!this.allAgentIds().includes(id)) {
      // A usage error (exit 2) like every other bad flag value. OpenClaw points to "openclaw agents list"; the agents
      // are named here, and clawkit's own status shows them with their stores.
      const known = this.allAgentIds()
      const listed = known.length === 0 ? 'this state dir has no agents yet' : `the agents here are ${known.slice(0, 10).join(', ')}${known.length > 10 ? ` and ${known.length - 10} more` : ''}`
      throw new UsageError(`Unknown agent id "${raw}"; ${listed}.`, 'E_UNKNOWN_AGENT', ['"clawkit status" shows each agent with its store.'])
    }
    return id
  }

  storeRef(agentId: string): StoreRef {
    return {agentId, path: resolveStorePath(this.stateDir, this.config, agentId, this.env)}
  }

  /**
   * The agent's session store in the era it is in: its SQLite database when it has one (the database is the truth,
   * even with a legacy sessions.json beside it), else its sessions.json. A SQLite store's writes refuse until the
   * writer lands; a file store's writes refuse while the agent keeps its sessions in SQLite (checked again inside
   * every write).
   */
  store(agentId: string): SessionStore {
    return this.storeFor(this.sessionStoreRef(agentId))
  }

  /**
   * Where the agent's sessions are read from: `path` is its SQLite database in the SQLite era, else its sessions.json
   * (storeRef). A write-ahead log without its database fails here in one line.
   */
  sessionStoreRef(agentId: string): StoreRef {
    const db = this.sqliteStore(agentId)
    if (db) return {agentId, path: db}
    assertNoOrphanWal(this.stateDir, agentId)
    return this.storeRef(agentId)
  }

  /** Whether a ref names a SQLite-era database (sessionStoreRef) rather than a sessions.json. */
  isSqliteRef(ref: StoreRef): boolean {
    return ref.path === findSqliteStore(this.stateDir, ref.agentId)
  }

  private readonly sqliteStores = new Map<string, SqliteSessionStore>()
  private readonly injected = new Map<string, SessionStore>()

  /** The store behind a ref a lookup returned (resolveSession's `ref`), so that its index and transcripts agree. */
  storeFor(ref: StoreRef): SessionStore {
    if (this.storeFactory) {
      let s = this.injected.get(ref.path)
      if (!s) this.injected.set(ref.path, (s = this.storeFactory(ref)))
      return s
    }
    if (this.isSqliteRef(ref)) {
      // One connection per database for the whole command; close() ends them.
      let s = this.sqliteStores.get(ref.path)
      if (!s) this.sqliteStores.set(ref.path, (s = new SqliteSessionStore(ref, {stateDir: this.stateDir, lockDir: path.join(clawkitDirs(this.env).data, 'locks')})))
      return s
    }
    return new FileSessionStore(ref, {sqliteStore: () => findSqliteStore(this.stateDir, ref.agentId)})
  }

  /** A SQLite-era database named by path (`sessions list --store`), closed with the others by close(). */
  sqliteStoreAt(ref: StoreRef): SessionStore {
    let s = this.sqliteStores.get(ref.path)
    if (!s) this.sqliteStores.set(ref.path, (s = new SqliteSessionStore(ref, {checkAgent: false})))
    return s
  }

  /** Close the SQLite connections this state opened (the command's end). */
  close(): void {
    for (const s of this.sqliteStores.values()) s.close()
    this.sqliteStores.clear()
  }

  /** The agent's SQLite-era database when it has one: clawkit then neither reads nor writes its JSON-era files. */
  sqliteStore(agentId: string): string | undefined {
    return findSqliteStore(this.stateDir, agentId)
  }

  /**
   * Writers call this before anything irreversible (a model call, a send). A SQLite-era agent needs a Node with
   * node:sqlite (one line naming the version otherwise) and a state dir no OpenClaw gateway or `agent --local` run
   * owns; the store checks ownership again before its first write.
   */
  assertWritable(agentId: string): void {
    if (this.storeFactory || !this.sqliteStore(agentId)) return
    loadSqlite('Writing a SQLite-era session store (OpenClaw 2026.7 and later)')
    assertNoGatewayOwner(this.stateDir)
  }
}

/** Backend factory. Only the OpenClaw file layout exists today; a shared-database backend would plug in here. */
export function openSessionStore(ref: StoreRef): SessionStore {
  return new FileSessionStore(ref)
}
