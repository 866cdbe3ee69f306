// The config an export carries. OpenClaw validates openclaw.json strictly and 2026.4.27 refuses every key it does not
// know ("Config invalid ... Unrecognized key"), so a config that 2026.9.6's `doctor --fix` rewrote would make the
// exported JSON-era state dir unusable. Exactly the keys that migration adds (seen on the imported fixture) are turned
// back into their 2026.4.27 form; everything else is kept as it is.

export interface DowngradedConfig {
  config: Record<string, unknown>
  /** One line per change, for the report (empty: the config is copied unchanged). */
  changes: string[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

function dropKey(parent: unknown, key: string, where: string, changes: string[]): void {
  if (isObj(parent) && key in parent) {
    delete parent[key]
    changes.push(`removed ${where}`)
  }
}

function dropIfEmpty(parent: unknown, key: string): void {
  if (isObj(parent) && isObj(parent[key]) && Object.keys(parent[key] as Obj).length === 0) delete parent[key]
}

export function downgradeConfig(source: unknown): DowngradedConfig {
  if (!isObj(source)) return {config: source as Obj, changes: []}
  const config = structuredClone(source)
  const changes: string[] = []
  const agents = config.agents
  if (isObj(agents)) {
    const defaults = agents.defaults
    const systemAgent = isObj(defaults) && isObj(defaults.systemAgent) && typeof defaults.systemAgent.agentId === 'string' ? defaults.systemAgent.agentId : undefined
    // 2026.9 keeps agents as a map `entries`; 2026.4.27 has the list `agents.list` of `{id, ...}`, default marked.
    if (isObj(agents.entries) && !Array.isArray(agents.list)) {
      agents.list = Object.entries(agents.entries).map(([id, cfg]) => ({id, ...(id === systemAgent ? {default: true} : {}), ...(isObj(cfg) ? cfg : {})}))
      delete agents.entries
      changes.push('agents.entries rewritten as agents.list')
    }
    dropKey(agents, 'ownership', 'agents.ownership', changes)
    if (isObj(defaults)) {
      dropKey(defaults, 'systemAgent', 'agents.defaults.systemAgent', changes)
      dropKey(defaults.heartbeat, 'agentId', 'agents.defaults.heartbeat.agentId', changes)
      dropIfEmpty(defaults, 'heartbeat')
    }
  }
  dropKey(config.talk, 'agentId', 'talk.agentId', changes)
  dropIfEmpty(config, 'talk')
  dropKey(config.meta, 'migrations', 'meta.migrations', changes)
  return {config, changes}
}
