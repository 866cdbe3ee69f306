#!/usr/bin/env bash
# Interop with real OpenClaw releases: installs a Node 24 runtime (scripts/node24.js), openclaw@2026.4.27 (JSON era)
# and openclaw@2026.9.6 (SQLite era) from the npm registry into a cache dir (once), fills the plugin runtime each
# release installs on its first agent run (scripts/interop-warm.mjs, once), then runs every
# test/reliability/interop*.test.ts, which drive clawkit and OpenClaw on temp state dirs.
#   npm run test:interop                          # cache in ~/.cache/clawkit-interop
#   npm run test:interop -- -t 'round trip'       # arguments go to vitest
#   npm run test:interop -- test/reliability/interop-cleanup.test.ts   # one file
#   CLAWKIT_INTEROP_CACHE=/path npm run test:interop
#   CLAWKIT_NODE24=/path/to/node                  # the Node 24 to use instead of the cached one
#   OPENCLAW_VERSION=2026.4.27 OPENCLAW96_VERSION=2026.9.6 CCUSAGE_VERSION=20.0.24   # the pinned defaults
# It also installs ccusage (its `openclaw` source) for test/reliability/interop-ccusage.test.ts.
# vitest itself runs on that Node 24 (so the clawkit children do too): the SQLite-era suites need node:sqlite, and
# OpenClaw 2026.9.6 needs Node >= 24.16.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export CLAWKIT_INTEROP_CACHE="${CLAWKIT_INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clawkit-interop}"
CACHE="$CLAWKIT_INTEROP_CACHE"
OPENCLAW_VERSION="${OPENCLAW_VERSION:-2026.4.27}"
OPENCLAW96_VERSION="${OPENCLAW96_VERSION:-2026.9.6}"

mkdir -p "$CACHE"
NODE_BIN="$(node "$ROOT/scripts/node24.js")"

# openclaw <version> installed once into $CACHE/openclaw-<version>; prints its openclaw.mjs.
install_openclaw() {
  local version="$1" dir="$CACHE/openclaw-$1"
  local entry="$dir/node_modules/openclaw/openclaw.mjs"
  if [ ! -f "$entry" ]; then
    echo "interop: installing openclaw@$version into $dir (about a minute)" >&2
    # openclaw needs Node >= 22.14 (2026.9.6: >= 24.16): put the Node 24 first so npm and its lifecycle scripts run on it.
    PATH="$(dirname "$NODE_BIN"):$PATH" npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "openclaw@$version" >&2
  fi
  [ -f "$entry" ] || { echo "interop: openclaw@$version did not install ($entry is missing)" >&2; exit 1; }
  echo "$entry"
}
# ccusage <version> (its `openclaw` source; a native binary in an optional dependency) installed once; prints its cli.js.
# 20.0.24: the newest whose linux-x64 binary is published (20.0.26's is not).
install_ccusage() {
  local version="$1" dir="$CACHE/ccusage-$1"
  local entry="$dir/node_modules/ccusage/src/cli.js"
  if [ ! -d "$dir/node_modules/@ccusage" ]; then
    echo "interop: installing ccusage@$version into $dir" >&2
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "ccusage@$version" >&2
  fi
  [ -f "$entry" ] || { echo "interop: ccusage@$version did not install ($entry is missing)" >&2; exit 1; }
  echo "$entry"
}
CCUSAGE_VERSION="${CCUSAGE_VERSION:-20.0.24}"
CC_ENTRY="$(install_ccusage "$CCUSAGE_VERSION")"
OC_ENTRY="$(install_openclaw "$OPENCLAW_VERSION")"
OC96_ENTRY="$(install_openclaw "$OPENCLAW96_VERSION")"
# Each release's plugin runtime deps (what OpenClaw installs from npm on its first agent run) into the cache the tests
# share, once, so that no test's first turn waits for that install inside its own timeout (scripts/interop-warm.mjs).
"$NODE_BIN" "$ROOT/scripts/interop-warm.mjs" "$OC_ENTRY" "$OPENCLAW_VERSION" "$CACHE"
"$NODE_BIN" "$ROOT/scripts/interop-warm.mjs" "$OC96_ENTRY" "$OPENCLAW96_VERSION" "$CACHE"
echo "interop: clawkit and vitest on $("$NODE_BIN" --version); openclaw $OPENCLAW_VERSION and $OPENCLAW96_VERSION" >&2

cd "$ROOT"
npm run build >&2
# Every interop file, unless the arguments name test files of their own (`npm run test:interop -- test/reliability/
# interop-cleanup.test.ts`): vitest's file filters add up, so the directory filter would run them all.
filter=(test/reliability/interop)
for a in "$@"; do case "$a" in *.test.ts) filter=() ;; esac; done
CLAWKIT_INTEROP_NODE="$NODE_BIN" CLAWKIT_INTEROP_OPENCLAW="$OC_ENTRY" CLAWKIT_INTEROP_VERSION="$OPENCLAW_VERSION" \
  CLAWKIT_INTEROP_OPENCLAW96="$OC96_ENTRY" CLAWKIT_INTEROP_VERSION96="$OPENCLAW96_VERSION" CLAWKIT_REQUIRE_SQLITE=1 \
  CLAWKIT_INTEROP_CCUSAGE="$CC_ENTRY" \
  "$NODE_BIN" node_modules/vitest/vitest.mjs run "${filter[@]}" "$@"
