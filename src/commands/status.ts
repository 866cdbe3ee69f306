// `clawkit status`: state dir, agents, recent sessions, a cheap doctor summary and the gateway port, on one screen.
import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {startLive} from '../cli/live.js'
import {UsageError} from '../errors.js'
import {hostFlags, storeUrlFlag} from '../fleet/flags.js'
import type {FleetStatusResult} from '../fleet/status.js'
import {colorEnabled, paint} from '../render/color.js'
import {terminalWidth} from '../render/fit.js'
import {ACTIVE_MARK, renderFleetStatus, renderStatus} from '../render/status.js'
import {localTime} from '../sessions/format.js'
import {getStatus, type StatusResult} from '../status/status.js'
import {watchStatus} from '../status/watch.js'
import {OpenClawState} from '../store/state.js'

export type {AgentStatus, SessionStatusRow, StatusResult} from '../status/status.js'
export type {GatewayProbe} from '../status/gateway.js'
export type {FleetAgentStatus, FleetHostStatus, FleetStatusResult} from '../fleet/status.js'

export default class Status extends BaseCommand<typeof Status> {
  static override summary = 'Show the state dir, agents, recent sessions, store health and whether a gateway runs'
  static override description =
    'Reads every agent\'s sessions.json and lists its sessions dir (no transcript is opened), runs doctor\'s cheap checks and probes the gateway port on 127.0.0.1. ' +
    'The --json "sessions" and "agents" objects mirror OpenClaw\'s status JSON; global/unknown keys are excluded as OpenClaw does.'
  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --all', '<%= config.bin %> status --watch', '<%= config.bin %> status --json', '<%= config.bin %> status --store-url postgres://reader@db.example/fleet']
  static override flags = {
    all: Flags.boolean({description: 'add the per-agent table'}),
    wide: Flags.boolean({description: 'print keys, models and paths in full (on a terminal, tables and lines are otherwise fitted to its width)'}),
    watch: Flags.boolean({description: 'on a terminal: redraw the screen as the stores change (and every 10 s), sessions that just changed marked, until Ctrl-C'}),
    'store-url': storeUrlFlag,
    host: hostFlags.host,
  }

  async run(): Promise<StatusResult | FleetStatusResult | undefined> {
    const f = this.flags
    if (f.watch) return this.watch()
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

  /**
   * --watch: the screen redrawn in place (cursor home, each line cleared to its end, the rest of the screen cleared: no
   * blank flash between frames) on the terminal's alternate screen, which Ctrl-C leaves with the last frame printed.
   */
  private async watch(): Promise<undefined> {
    const f = this.flags
    if (this.jsonEnabled()) throw new UsageError('--watch redraws a screen; --json prints one document: use one or the other', 'E_FLAG_CONFLICT')
    if (f['store-url'] !== undefined || f.host !== undefined) throw new UsageError('--watch follows the local state dir; the fleet replica changes only when a host syncs', 'E_FLAG_CONFLICT')
    if (!process.stdout.isTTY) {
      throw new UsageError('--watch redraws the screen of a terminal, and stdout is not one', 'E_NOT_A_TERMINAL', ['for a record over time, run "clawkit status --json" at intervals instead'])
    }
    const first = this.openState({tolerateConfigError: true})
    const profile = f.dev ? 'dev' : (f.profile ?? first.env.OPENCLAW_PROFILE)
    const color = colorEnabled()
    const live = startLive()
    const ESC = '\u001B['
    let lastText = ''
    let lastFrame: Parameters<Parameters<typeof watchStatus>[0]['onFrame']> | undefined
    const draw = async (...[{result, active, at}, allKeys]: NonNullable<typeof lastFrame>) => {
      const width = f.wide ? Number.POSITIVE_INFINITY : (process.stdout.columns ?? 80)
      const head = paint(color, 'dim', `Watching: redrawn on every change and every 10 s (last ${localTime(new Date(at).toISOString())}); ${ACTIVE_MARK} changed in the last 10 s; Ctrl-C to stop.`)
      lastText = await renderStatus(result, color, {width, allKeys, active})
      const lines = [head, ...lastText.trimEnd().split('\n')]
      // Taller than the terminal, it would scroll and the next frame would not land on this one.
      const rows = process.stdout.rows ?? 24
      const shown = lines.length <= rows - 1 ? lines : [...lines.slice(0, rows - 2), paint(color, 'dim', `\u2026 ${lines.length - rows + 2} more line(s): a taller terminal shows them`)]
      await live.write(`${ESC}H${shown.map((l) => `${l}${ESC}K`).join('\n')}${ESC}J`)
    }
    const onResize = () => void (lastFrame && draw(...lastFrame))
    await live.write(`${ESC}?1049h${ESC}?25l${ESC}2J`)
    process.stdout.on('resize', onResize)
    try {
      await watchStatus({
        // A state per computation, not kept by the command: a watch runs for days.
        open: () => OpenClawState.open({stateDir: f['state-dir'], profile: f.profile, dev: f.dev, tolerateConfigError: true}),
        status: {all: f.all, profile},
        allKeys: true,
        signal: live.signal,
        onFrame: async (...frame) => {
          lastFrame = frame
          await draw(...frame)
        },
      })
    } finally {
      process.stdout.off('resize', onResize)
      process.stdout.write(`${ESC}?25h${ESC}?1049l${lastText}`)
      live.done()
    }
    return undefined
  }
}
