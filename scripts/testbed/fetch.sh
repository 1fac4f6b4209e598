#!/usr/bin/env bash
# scripts/testbed/fetch.sh [DEST]: installs the pinned prebuilt llama.cpp that the testbed drives
# (npm package @node-llama-cpp/linux-x64 3.22.1, MIT; llama.cpp built from commit 0ad4a86) into
# DEST (default build/testbed/pkg) and prints the folder holding libllama.
# The tarball is fetched with npm's own client (`npm pack`) and must match the sha256 below,
# computed once when the version was pinned; a mismatch is an error (exit 1), never a skip.
# Exit 77 when it cannot be fetched at all (no npm and no apt-get, or no registry): the tests
# turn that into a CTest skip. Installs Node/npm with apt-get when missing and allowed
# (root or sudo).
set -euo pipefail
VERSION=3.22.1
PKG=@node-llama-cpp/linux-x64
SHA256=0d953e1503d5ab4608d8ed5b739132308c81ac05ffeb760d2a7f30e08a9f90e0
TGZ=node-llama-cpp-linux-x64-$VERSION.tgz
dest=${1:-build/testbed/pkg}
lib=$dest/package/bins/linux-x64
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
lib=$dest/package/bins/linux-x64
if [ -f "$dest/.verified-$VERSION" ] && [ -f "$lib/libllama.v0.5.0.so" ]; then
  echo "$lib"; exit 0
fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "fetch.sh: the pinned package is for Linux x86-64 only (this is $(uname -s)-$(uname -m))" >&2; exit 77
fi
if ! command -v npm >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && $sudo true 2>/dev/null; then
    echo "fetch.sh: installing nodejs and npm with apt-get" >&2
    $sudo apt-get update -qq >&2 && $sudo apt-get install -y -qq nodejs npm >&2 || true
  fi
  command -v npm >/dev/null 2>&1 || { echo "fetch.sh: npm is not installed and cannot be installed here" >&2; exit 77; }
fi
# A download is atomic: into a temporary folder, checked, then unpacked.
tmp=$(mktemp -d "$dest/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && npm pack "$PKG@$VERSION" --silent >/dev/null 2>"$tmp/npm.log"); then
  echo "fetch.sh: npm could not fetch $PKG@$VERSION (offline?):" >&2; tail -3 "$tmp/npm.log" >&2; exit 77
fi
got=$(sha256sum "$tmp/$TGZ" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
  echo "fetch.sh: $TGZ has sha256 $got, expected $SHA256: refusing it" >&2; exit 1
fi
rm -rf "$dest/package"
tar -xzf "$tmp/$TGZ" -C "$dest"
[ -f "$lib/libllama.v0.5.0.so" ] || { echo "fetch.sh: $lib/libllama.v0.5.0.so missing from the package" >&2; exit 1; }
touch "$dest/.verified-$VERSION"
echo "$lib"
