// `clawkit status`: state dir, agents, recent sessions, a cheap doctor summary and the gateway port, on one screen.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {hostFlags, storeUrlFlag} from '../fleet/flags.js'
import type {FleetStatusResult} from '../fleet/status.js'
import {colorEnabled} from '../render/color.js'
import {terminalWidth} from '../render/fit.js'
import {renderFleetStatus, renderStatus} from '../render/status.js'
import {getStatus, type StatusResult} from '../status/status.js'

export type {AgentStatus, SessionStatusRow, StatusResult} from '../status/status.js'
export type {GatewayProbe} from '../status/gateway.js'
export type {FleetAgentStatus, FleetHostStatus, FleetStatusResult} from '../fleet/status.js'

export default class Status extends BaseCommand<typeof Status> {
  static override summary = 'Show the state dir, agents, recent sessions, store health and whether a gateway runs'
  static override description =
    'Reads every agent\'s sessions.json and lists its sessions dir (no transcript is opened), runs doctor\'s cheap checks and probes the gateway port on 127.0.0.1. ' +
    'The --json "sessions" and "agents" objects mirror OpenClaw\'s status JSON; global/unknown keys are excluded as OpenClaw does.'
  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --all', '<%= config.bin %> status --json', '<%= config.bin %> status --store-url postgres://reader@db.example/fleet']
  static override flags = {
    all: Flags.boolean({description: 'add the per-agent table'}),
    wide: Flags.boolean({description: 'print keys, models and paths in full (on a terminal, tables and lines are otherwise fitted to its width)'}),
    'store-url': storeUrlFlag,
    host: hostFlags.host,
  }

  async run(): Promise<StatusResult | FleetStatusResult> {
    const f = this.flags
    const replica = await this.fleetFromFlags()
    if (replica) {
      const {fleetStatus} = await import('../fleet/status.js')
      const fleet = await fleetStatus(replica, {host: f.host})
      if (!this.jsonEnabled()) process.stdout.write(renderFleetStatus(fleet, colorEnabled()))
      return fleet
    }
    const state = this.openState({tolerateConfigError: true})
    const profile = f.dev ? 'dev' : (f.profile ?? state.env.OPENCLAW_PROFILE)
    // Only a table needs them (to cut keys); --json skips collecting 10 000 keys.
    const allKeys: string[] | undefined = this.jsonEnabled() ? undefined : []
    const result = await getStatus(state, {all: f.all, profile, allKeys})
    if (!this.jsonEnabled()) process.stdout.write(await renderStatus(result, colorEnabled(), {width: f.wide ? Number.POSITIVE_INFINITY : terminalWidth(), allKeys}))
    return result
  }
}
