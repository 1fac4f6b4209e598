#!/usr/bin/env bash
# scripts/testbed/prereq.sh BUILD: what a testbed run needs before it measures, for run.sh and
# protocol.sh: the pinned llama.cpp (fetch.sh; its folder printed on standard output) and fio
# (installed with apt-get when missing). Exit: 0; 77 when the library cannot be fetched here (a
# skip); 69 when fio is missing and cannot be installed; fetch.sh's other failures as they are.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
set +e
lib=$(bash "$here/fetch.sh" "$1/testbed/pkg")
st=$?
set -e
if [ $st -eq 77 ]; then echo "SKIP: the pinned llama.cpp cannot be fetched here" >&2; exit 77; fi
[ $st -eq 0 ] || exit $st
command -v fio >/dev/null 2>&1 || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo -n";
  $sudo apt-get install -y -qq fio >&2 || { echo "prereq.sh: fio is missing and cannot be installed" >&2; exit 69; }; }
echo "$lib"
