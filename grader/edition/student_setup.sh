#!/usr/bin/env bash
# Install what the course needs (Debian 12 / Ubuntu 24.04, with apt) and build the labs into build/.
# Safe to run again: it installs only what is missing and rebuilds only what changed.
#
# A CUDA toolkit (nvcc) is used when one is installed; without it the labs run on the CPU backend.
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake ninja-build g++ libgtest-dev googletest libboost-context-dev python3 ccache libtomlplusplus-dev
          mkdocs mkdocs-material)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "== configuring and building (build/)"
cmake --preset default
cmake --build --preset default

echo "== ready. Edit labs/01_matadd/matadd.cu (its handout: labs/01_matadd/README.md), then:"
echo "   cmake --build build && ctest --test-dir build -R lab01"
