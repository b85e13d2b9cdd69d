#!/usr/bin/env bash
# Builds engine/testing/kafka-mock-broker.c into engine/testing/.build/kafka-mock-broker.
# Idempotent: installs Debian's librdkafka-dev (and a C compiler) only when missing (CI is a
# fresh bookworm machine run as root, DESIGN.md "Dependency facts"), and recompiles only
# when the source is newer than the binary. Prints the binary's path on stdout.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/kafka-mock-broker.c"
out_dir="$here/.build"
bin="$out_dir/kafka-mock-broker"

# Test files start in parallel: one build at a time.
mkdir -p "$out_dir"
exec 9>"$out_dir/.lock"
flock 9

# Debian packages needed: the library with its mock cluster header, and a C compiler.
packages=()
[ -f /usr/include/librdkafka/rdkafka_mock.h ] || packages+=(librdkafka-dev)
command -v cc >/dev/null 2>&1 || packages+=(gcc libc6-dev)
if [ "${#packages[@]}" -gt 0 ]; then
  if [ "$(id -u)" != "0" ]; then
    echo "kafka-mock-build: missing ${packages[*]}; run as root or: sudo apt-get install -y ${packages[*]}" >&2
    exit 1
  fi
  echo "kafka-mock-build: installing ${packages[*]} (Debian) for the Kafka mock broker" >&2
  export DEBIAN_FRONTEND=noninteractive
  # A fresh machine may have no package lists yet; update once, then install.
  if ! apt-get install -y --no-install-recommends "${packages[@]}" >&2; then
    apt-get update >&2
    apt-get install -y --no-install-recommends "${packages[@]}" >&2
  fi
fi

if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
  # Compile to a temporary name first so a concurrent reader never runs a half-written binary.
  tmp="$bin.tmp.$$"
  cc -O2 -Wall -Wextra -o "$tmp" "$src" -lrdkafka
  mv -f "$tmp" "$bin"
  echo "kafka-mock-build: built $bin" >&2
fi
echo "$bin"
