// clawkit's autocomplete commands (src/commands/autocomplete, src/cli/autocomplete-plugin.ts) against the plugin's own.
import {createRequire} from 'node:module'
import fs from 'node:fs'
import path from 'node:path'

import {describe, expect, it} from 'vitest'

import {baseEnv, ROOT, runCli, tempDir} from '../support/cli.js'

type Manifest = {commands: Record<string, {description?: string; hidden?: boolean; examples?: string[]; args: Record<string, unknown>; flags: Record<string, unknown>}>}

/** The plugin's own manifest, next to its package (its exports map offers only the main module). */
function pluginManifest(): Manifest {
  const main = createRequire(path.join(ROOT, 'package.json')).resolve('@oclif/plugin-autocomplete')
  return JSON.parse(fs.readFileSync(path.join(path.dirname(main), '..', 'oclif.manifest.json'), 'utf8')) as Manifest
}

const ourManifest = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest

describe('autocomplete: @oclif/plugin-autocomplete\'s commands, declared by clawkit and run from the plugin package', () => {
  it('declare exactly the plugin\'s commands, arguments, flags, descriptions and examples (so an update cannot drift)', () => {
    const theirs = pluginManifest().commands
    const ours = ourManifest().commands
    const ids = Object.keys(theirs).sort()
    expect(ids).toEqual(['autocomplete', 'autocomplete:create', 'autocomplete:script'])
    for (const id of ids) {
      const pick = (c: Manifest['commands'][string]) => ({description: c.description, hidden: Boolean(c.hidden), examples: c.examples ?? [], args: c.args, flags: c.flags})
      expect(pick(ours[id]), id).toEqual(pick(theirs[id]))
    }
  })

  it('autocomplete --refresh-cache writes completions that know every public command and flag; script prints the setup line', async () => {
    const home = tempDir()
    const cache = path.join(home, 'cache')
    const env = baseEnv(home, {CLAWKIT_CACHE_DIR: cache})
    const r = await runCli(['autocomplete', '--refresh-cache'], {env})
    expect(r.code, r.stderr).toBe(0)
    const bash = fs.readFileSync(path.join(cache, 'autocomplete', 'functions', 'bash', 'clawkit.bash'), 'utf8')
    for (const id of ['sessions:list', 'sessions:history', 'sessions:reset', 'status', 'doctor', 'agent', 'message:send', 'help', 'autocomplete']) {
      expect(bash, id).toMatch(new RegExp(`^${id}( |$)`, 'm'))
    }
    expect(bash).toMatch(/^doctor .*--dry-run/m)
    expect(bash).not.toMatch(/^autocomplete:script/m) // hidden
    const script = await runCli(['autocomplete', 'script', 'bash'], {env})
    expect(script.code, script.stderr).toBe(0)
    expect(script.stdout).toContain(`CLAWKIT_AC_BASH_SETUP_PATH=${path.join(cache, 'autocomplete', 'bash_setup')}`)
  })

  it('parse their arguments as oclif expects, so NODE_ENV=development prints no warning about them', async () => {
    for (const args of [['autocomplete', 'script', 'bash'], ['autocomplete', 'create'], ['autocomplete', 'bash']]) {
      const r = await runCli(args, {env: baseEnv(tempDir(), {NODE_ENV: 'development'})})
      expect(r.code, r.stderr).toBe(0)
      // (The plugin's own create command does not parse; oclif names it "create" and warns about it, as it always has.)
      expect(r.stderr).not.toMatch(/Command autocomplete(:\w+)? did not parse/)
    }
  })

  it('rejects a shell it does not know, as the plugin does', async () => {
    const r = await runCli(['autocomplete', 'fish'], {env: baseEnv(tempDir())})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/Expected fish to be one of: zsh, bash, powershell/)
  })
})
