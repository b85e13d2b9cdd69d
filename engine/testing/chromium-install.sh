#!/usr/bin/env bash
# Installs Debian's chromium for the console's browser test (api/console-browser.test.ts),
# which drives /usr/bin/chromium through puppeteer-core. Idempotent and quiet: exits 0 at
# once when the browser is there; otherwise installs it (CI is a fresh bookworm machine run
# as root, DESIGN.md "Dependency facts"), updating the package lists once first.
set -euo pipefail

bin=/usr/bin/chromium
[ -x "$bin" ] && exit 0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Test runs may start in parallel: one install at a time (the second finds it installed).
mkdir -p "$here/.build"
exec 9>"$here/.build/.chromium-lock"
flock 9
[ -x "$bin" ] && exit 0

if [ "$(id -u)" != "0" ]; then
  echo "chromium-install: $bin is missing; run as root or: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "chromium-install: installing chromium (Debian) for the console's browser test" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet: update once, then install.
apt-get update -qq >&2
apt-get install -y -qq chromium >&2
[ -x "$bin" ] || { echo "chromium-install: $bin still missing after apt-get install chromium" >&2; exit 1; }
