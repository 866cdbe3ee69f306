import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {loadConfig, resolveDefaultAgentId} from '../../src/config/config.js'
import {resolveStorePath} from '../../src/store/store-path.js'
import {resolveConfigPath, resolveHomeDir, resolveStateDir} from '../../src/config/paths.js'
import {OpenClawState} from '../../src/store/state.js'
import {tempDir} from '../support/cli.js'

describe('state dir resolution (OpenClaw order)', () => {
  it('--state-dir beats OPENCLAW_STATE_DIR beats profile beats ~/.openclaw beats legacy ~/.clawdbot', () => {
    const home = tempDir()
    const env = {HOME: home}
    expect(resolveStateDir({env})).toMatchObject({stateDir: path.join(home, '.openclaw'), source: 'default-missing'})
    fs.mkdirSync(path.join(home, '.clawdbot'))
    expect(resolveStateDir({env})).toMatchObject({stateDir: path.join(home, '.clawdbot'), source: 'legacy'})
    fs.mkdirSync(path.join(home, '.openclaw'))
    expect(resolveStateDir({env})).toMatchObject({stateDir: path.join(home, '.openclaw'), source: 'default'})
    expect(resolveStateDir({env, profile: 'work'})).toMatchObject({stateDir: path.join(home, '.openclaw-work'), source: 'profile'})
    expect(resolveStateDir({env, dev: true}).stateDir).toBe(path.join(home, '.openclaw-dev'))
    expect(resolveStateDir({env: {...env, OPENCLAW_PROFILE: 'default'}}).stateDir).toBe(path.join(home, '.openclaw'))
    expect(resolveStateDir({env: {...env, OPENCLAW_STATE_DIR: '~/custom'}, profile: 'work'}).stateDir).toBe(path.join(home, 'custom'))
    expect(resolveStateDir({env: {...env, OPENCLAW_STATE_DIR: '/x'}, stateDir: '/y'})).toMatchObject({stateDir: '/y', source: 'flag'})
  })

  it('OPENCLAW_HOME replaces HOME; "undefined"/"null" values are ignored', () => {
    expect(resolveHomeDir({HOME: '/h', OPENCLAW_HOME: '/oc'})).toBe('/oc')
    expect(resolveHomeDir({HOME: '/h', OPENCLAW_HOME: 'undefined'})).toBe('/h')
    expect(resolveStateDir({env: {HOME: '/h', OPENCLAW_HOME: '/oc', OPENCLAW_TEST_FAST: '1'}}).stateDir).toBe('/oc/.openclaw')
  })

  it('rejects bad profiles with OpenClaw messages', () => {
    expect(() => resolveStateDir({env: {HOME: '/h'}, profile: 'a b'})).toThrow('Invalid --profile (use letters, numbers, "_", "-" only)')
    expect(() => resolveStateDir({env: {HOME: '/h'}, profile: 'a', dev: true})).toThrow('Cannot combine --dev with --profile')
  })

  it('config: OPENCLAW_CONFIG_PATH, then openclaw.json, then legacy clawdbot.json; JSON5 accepted', () => {
    const state = tempDir()
    expect(resolveConfigPath(state, {})).toBe(path.join(state, 'openclaw.json'))
    fs.writeFileSync(path.join(state, 'clawdbot.json'), '{agents: {list: [{id: "Ops", default: true}]}}')
    expect(resolveConfigPath(state, {})).toBe(path.join(state, 'clawdbot.json'))
    expect(resolveDefaultAgentId(loadConfig(state, {}).config)).toBe('ops')
    expect(resolveConfigPath(state, {OPENCLAW_CONFIG_PATH: '/etc/x.json'})).toBe('/etc/x.json')
  })

  it('an invalid config is a clear error naming the file', () => {
    const state = tempDir()
    fs.writeFileSync(path.join(state, 'openclaw.json'), '{agents: [}')
    expect(() => loadConfig(state, {})).toThrow(/Config invalid: .*openclaw\.json/)
  })

  it('session.store templating with {agentId} and ~, and agents = configured plus found on disk', () => {
    const home = tempDir()
    const state = path.join(home, 'st')
    fs.mkdirSync(path.join(state, 'agents', 'ghost', 'sessions'), {recursive: true})
    fs.mkdirSync(path.join(state, 'agents', 'Not Valid'), {recursive: true})
    fs.writeFileSync(path.join(state, 'openclaw.json'), '{session: {store: "~/stores/{agentId}/s.json"}, agents: {list: [{id: "main"}, {id: "Work"}]}}')
    const s = OpenClawState.open({stateDir: state, env: {HOME: home}, ignoreSettings: true})
    expect(s.allAgentIds()).toEqual(['main', 'work', 'ghost'])
    expect(resolveStorePath(state, s.config, 'Work', {HOME: home})).toBe(path.join(home, 'stores', 'work', 's.json'))
    expect(() => s.requireAgent('nobody')).toThrow('Unknown agent id "nobody"')
  })

  it('clawkit settings supply a default state dir only where OpenClaw would fall back to ~/.openclaw', () => {
    const home = tempDir()
    const cfg = path.join(home, 'cfg')
    fs.mkdirSync(cfg)
    fs.writeFileSync(path.join(cfg, 'config.json'), JSON.stringify({stateDir: '~/mystate', agent: 'Work'}))
    const env = {HOME: home, CLAWKIT_CONFIG_DIR: cfg}
    const s = OpenClawState.open({env})
    expect(s.stateDir).toBe(path.join(home, 'mystate'))
    expect(s.activeAgentId).toBe('work')
    expect(OpenClawState.open({env: {...env, OPENCLAW_STATE_DIR: '/x'}}).stateDir).toBe('/x')
  })
})

describe('agent workspace (OpenClaw resolveAgentWorkspaceDir)', () => {
  it('own workspace, then defaults.workspace (default agent) or <defaults>/<id>, else ~/.openclaw/workspace[-profile] or <state>/workspace-<id>', async () => {
    const {resolveWorkspaceDir} = await import('../../src/config/config.js')
    const env = {HOME: '/h'}
    const listed = {agents: {list: [{id: 'main', default: true}, {id: 'work'}, {id: 'ops', workspace: '~/ops-ws'}]}}
    expect(resolveWorkspaceDir('/state', listed, 'ops', env)).toBe('/h/ops-ws')
    expect(resolveWorkspaceDir('/state', listed, 'main', env)).toBe('/h/.openclaw/workspace')
    expect(resolveWorkspaceDir('/state', listed, 'main', {...env, OPENCLAW_PROFILE: 'work'})).toBe('/h/.openclaw/workspace-work')
    expect(resolveWorkspaceDir('/state', listed, 'main', {...env, OPENCLAW_PROFILE: 'default'})).toBe('/h/.openclaw/workspace')
    expect(resolveWorkspaceDir('/state', listed, 'work', env)).toBe('/state/workspace-work')
    const withDefaults = {agents: {...listed.agents, defaults: {workspace: '~/ws'}}}
    expect(resolveWorkspaceDir('/state', withDefaults, 'main', env)).toBe('/h/ws')
    expect(resolveWorkspaceDir('/state', withDefaults, 'work', env)).toBe('/h/ws/work')
  })

  it('--profile sets OPENCLAW_PROFILE for the workspace as OpenClaw\'s CLI does', () => {
    const home = tempDir()
    const s = OpenClawState.open({profile: 'work', env: {HOME: home}, ignoreSettings: true})
    expect(s.stateDir).toBe(path.join(home, '.openclaw-work'))
    expect(s.env.OPENCLAW_PROFILE).toBe('work')
  })
})
