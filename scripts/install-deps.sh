#!/usr/bin/env bash
# Installs, with apt-get, only the Debian packages leversim needs that are missing.
# Safe to run again: when everything is present it does nothing and touches no network.
set -eu
pkgs="gcc make cmake pkg-config libgsl-dev libsqlite3-dev libyaml-dev libcunit1-dev libjansson-dev libssl-dev fio gnuplot-nox git sqlite3"
missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
