#!/usr/bin/env bash
# Installs the Debian packages coinsdb builds, tests and benchmarks with.
# Idempotent: packages already present are skipped, and apt runs only when one is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libleveldb-dev libsecp256k1-dev libboost-test-dev libssl-dev
  libfmt-dev nlohmann-json3-dev libevent-dev hyperfine python3 time git
  libbenchmark-dev python3-matplotlib libmimalloc-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
