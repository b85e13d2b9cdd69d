#!/usr/bin/env bash
# Installs Debian's PostgreSQL server for the scale-out deployment (scaleout.ts, `make
# scaleout-up`, api/scaleout.test.ts), which runs its own cluster from initdb. Idempotent and
# quiet: exits 0 at once when a server is under /usr/lib/postgresql; otherwise installs one (CI
# is a fresh bookworm machine run as root), telling the package to create no cluster of its own,
# so that nothing is started on port 5432 behind our back.
set -euo pipefail

installed() { compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; }
installed && exit 0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Test runs may start in parallel: one install at a time (the second finds it installed).
mkdir -p "$here/.build"
exec 9>"$here/.build/.postgresql-lock"
flock 9
installed && exit 0

if [ "$(id -u)" != "0" ]; then
  echo "postgresql-install: no PostgreSQL under /usr/lib/postgresql; run as root or: sudo apt-get install -y postgresql" >&2
  exit 1
fi
echo "postgresql-install: installing postgresql (Debian) for the scale-out deployment" >&2
mkdir -p /etc/postgresql-common/createcluster.d
echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/no-main-cluster.conf
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet: update once, then install.
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends postgresql >&2
installed || { echo "postgresql-install: still no server after apt-get install postgresql" >&2; exit 1; }
