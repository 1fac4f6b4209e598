#!/usr/bin/env bash
# Real single-node Slurm self-test of runner/cluster/{submit.sh,sweep.sbatch,merge.sbatch}.
#
# Opt-in (the CLI test "real single-node Slurm" runs it when LEVERSIM_SLURM_TEST=1); needs root
# on Debian 12 and the Debian package registry. Steps, each bounded in time:
#   1. apt-get installs what is missing: slurmctld slurmd slurm-client munge.
#   2. A private munged (own socket, key /etc/munge/munge.key, created if absent) runs as the
#      munge user; a private slurm.conf (one node: this host, localhost only, no cgroups, no
#      accounting, state under a temp dir, ports 16817/16818) is given to every Slurm command
#      through SLURM_CONF; slurmctld and slurmd run as root in the foreground (-D), backgrounded.
#   3. When sinfo shows the node idle, submit.sh queues a 3-task sweep array and the merge job
#      (afterok) for a tiny experiment on the fixture data root tests/runner/data.
#   4. The merged database's v_runs (CSV) must be byte-identical to one unsharded sweep.
#   5. Whatever it started (jobs, slurmd, slurmctld, munged) is stopped by pid, temp files go.
# Environment: LEVERSIM (binary; default <repo>/build/leversim), SLURM_SELFTEST_KEEP=1 keeps
# the temp dir for inspection. Exit 0 on success, non-zero with a message on any failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
say() { printf 'slurm-selftest: %s\n' "$*" >&2; }
fail_msg=
die() { fail_msg=$*; say "FAIL: $*"; exit 1; }
t0=$(date +%s)

[ "$(id -u)" = 0 ] || die "must run as root (it installs packages and starts slurmctld/slurmd)"
LEVERSIM=${LEVERSIM:-$repo/build/leversim}
case $LEVERSIM in /*) ;; *) LEVERSIM=$PWD/$LEVERSIM ;; esac
[ -x "$LEVERSIM" ] || die "no leversim binary at $LEVERSIM (build it, or set LEVERSIM)"
export LEVERSIM
export LEVERSIM_DATA=$repo/tests/runner/data
[ -d "$LEVERSIM_DATA" ] || die "fixture data root $LEVERSIM_DATA missing"

# ---- 1. packages -------------------------------------------------------------------------
need=()
command -v slurmctld >/dev/null || need+=(slurmctld)
command -v slurmd >/dev/null || need+=(slurmd)
command -v sbatch >/dev/null || need+=(slurm-client)
{ command -v munged >/dev/null && command -v mungekey >/dev/null; } || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
  say "installing: ${need[*]}"
  # Keep package scripts from starting the distribution's services (they would run without
  # our config); only if no policy is in place already, and removed again afterwards.
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
    made_policy=1
  fi
  apt_install() {
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q --no-install-recommends \
      "${need[@]}" >"${TMPDIR:-/tmp}/slurm-selftest-apt.log" 2>&1
  }
  ok=1
  apt_install || { timeout 300 apt-get update -q >/dev/null 2>&1 || true; apt_install; } || ok=0
  [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
  [ $ok = 1 ] || { tail -20 "${TMPDIR:-/tmp}/slurm-selftest-apt.log" >&2; die "apt-get install ${need[*]} failed"; }
  rm -f "${TMPDIR:-/tmp}/slurm-selftest-apt.log"
fi
say "$(slurmctld -V) ($(munged --version 2>&1 | head -1))"

# ---- temp dir and cleanup ----------------------------------------------------------------
T=$(mktemp -d /tmp/leversim-slurm.XXXXXX)
chmod 755 "$T"  # munged runs as the munge user and must reach its socket dir
pids=()         # daemons we started, stopped in reverse order
jobs_started=() # job ids we submitted
cleanup() {
  local rc=$?
  set +e
  for j in "${jobs_started[@]}"; do scancel "$j" >/dev/null 2>&1; done
  # Let the jobs' slurmstepd processes finish before slurmd stops: each holds a socket in
  # the spool dir until it exits.
  for _ in $(seq 1 40); do
    [ -z "$(squeue -h 2>/dev/null)" ] && [ -z "$(find "$T/spool" -type s 2>/dev/null)" ] && break
    sleep 0.5
  done
  for ((k = ${#pids[@]} - 1; k >= 0; k--)); do
    kill "${pids[k]}" 2>/dev/null
    for _ in $(seq 1 40); do kill -0 "${pids[k]}" 2>/dev/null || break; sleep 0.25; done
    kill -9 "${pids[k]}" 2>/dev/null
    wait "${pids[k]}" 2>/dev/null
  done
  if [ $rc != 0 ]; then
    for f in "$T"/log/*.log "$T"/jobdir/*.log; do
      [ -s "$f" ] && { say "---- tail of $f"; tail -15 "$f" >&2; }
    done
  fi
  if [ "${SLURM_SELFTEST_KEEP:-0}" = 1 ]; then say "kept $T"; else rm -rf "$T"; fi
  say "$([ $rc = 0 ] && echo PASS || echo "FAILED (exit $rc${fail_msg:+: $fail_msg})") after $(($(date +%s) - t0)) s"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Polls "$@" until it succeeds, at most $1 seconds.
wait_for() {
  local secs=$1; shift
  local end=$(($(date +%s) + secs))
  until "$@"; do
    [ "$(date +%s)" -lt "$end" ] || return 1
    sleep 0.5
  done
}

mkdir -p "$T/log" "$T/ctld" "$T/spool" "$T/jobdir" "$T/munge"
for port in 16817 16818; do
  ! ss -ltn "sport = :$port" | grep -q LISTEN || die "port $port is in use (another slurm?)"
done

# ---- 2a. munge ---------------------------------------------------------------------------
key=/etc/munge/munge.key
if [ ! -s $key ]; then
  say "creating munge key $key"
  install -d -o munge -g munge -m 700 /etc/munge
  mungekey --create --keyfile=$key || die "mungekey failed"
  chown munge:munge $key && chmod 400 $key
fi
chown munge:munge "$T/munge" && chmod 755 "$T/munge"
sock=$T/munge/munge.sock
# setpriv execs munged itself (no wrapper process), so $! is munged's pid.
setpriv --reuid=munge --regid=munge --init-groups munged --foreground --socket="$sock" --key-file=$key \
  --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/seed" --log-file="$T/munge/munged.log" \
  >"$T/log/munged.log" 2>&1 &
pids+=($!)
wait_for 15 test -S "$sock" || die "munged did not create $sock"
munge --socket="$sock" -n | unmunge --socket="$sock" >/dev/null || die "munge credential round trip failed"

# ---- 2b. slurm.conf ----------------------------------------------------------------------
host=$(hostname -s)
cpus=$(nproc)
avail_mb=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
mem=$((avail_mb * 9 / 10))
[ "$mem" -ge 2048 ] || die "only $avail_mb MB available; sweep.sbatch asks --mem=2G"
[ "$cpus" -ge 2 ] || die "only $cpus CPU; sweep.sbatch asks --cpus-per-task=2"
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<EOF
# leversim slurm self-test: one node, localhost only, no cgroups, no accounting.
ClusterName=leversimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$T/ctld
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

# ---- 2c. daemons -------------------------------------------------------------------------
slurmctld -D -c -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
wait_for 30 scontrol ping >/dev/null 2>&1 || die "slurmctld did not answer scontrol ping"
slurmd -D -f "$SLURM_CONF" -N "$host" >"$T/log/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -N -n "$host" -o %t 2>/dev/null)" = idle ]; }
wait_for 60 node_idle || die "node $host not idle after 60 s: $(sinfo -N 2>&1 | tail -1)"
say "node $host idle ($cpus CPUs, ${mem} MB) after $(($(date +%s) - t0)) s"

# ---- 3. sharded sweep through submit.sh --------------------------------------------------
cd "$T/jobdir"
cat >exp.yaml <<'EOF'
name: slurmtest
seed: 5
settings:
  workload.prompts: 1
  workload.max_tokens: 24
parts:
  - name: main
    devices: [tiny]
    models: [tiny-target]
    datasets: [iid, positional]
    systems: [ar-flash, sd-chain, lever]
EOF
out=$(timeout 60 bash "$repo/runner/cluster/submit.sh" "$T/jobdir/exp.yaml" 3 "$T/jobdir/shards" "$T/jobdir/merged.db" 2>&1) ||
  die "submit.sh failed: $out"
say "submit.sh: $(echo "$out" | tr '\n' ' ')"
array=$(echo "$out" | sed -n 's/^sweep array \([0-9]*\).*/\1/p')
merge=$(echo "$out" | sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p')
[ -n "$array" ] && [ -n "$merge" ] || die "could not read the job ids from submit.sh's output"
jobs_started=("$array" "$merge")

job_state() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2 || true; }
merge_done() {
  local s r
  s=$(job_state "$merge")
  case $s in
  COMPLETED) return 0 ;;
  PENDING)
    r=$(scontrol -o show job "$merge" | grep -o 'Reason=[A-Za-z_]*' | cut -d= -f2)
    [ "$r" != DependencyNeverSatisfied ] || die "merge job $merge will never run: a shard failed"
    return 1 ;;
  RUNNING | CONFIGURING | COMPLETING | "") return 1 ;;
  *) die "merge job $merge ended $s" ;;
  esac
}
wait_for 300 merge_done || die "merge job $merge not done after 300 s (state $(job_state "$merge"))"
for i in 1 2 3; do
  s=$(job_state "${array}_$i")
  [ "$s" = COMPLETED ] || die "array task ${array}_$i ended ${s:-unknown}"
done
# No sacct without accounting: the jobs' states come from slurmctld (MinJobAge keeps them).
[ -z "$(squeue -h)" ] || die "queue not empty after the merge: $(squeue -h | tr '\n' ' ')"
say "array $array (3 tasks) and merge $merge COMPLETED after $(($(date +%s) - t0)) s"

# ---- 4. same metrics as one unsharded sweep ----------------------------------------------
[ -s merged.db ] || die "merge job left no $T/jobdir/merged.db"
timeout 120 "$LEVERSIM" sweep exp.yaml --db whole.db >whole.log 2>&1 || die "unsharded sweep failed: $(tail -3 whole.log)"
timeout 60 "$LEVERSIM" export --db whole.db --view v_runs --format csv >whole.csv || die "export of whole.db failed"
timeout 60 "$LEVERSIM" export --db merged.db --view v_runs --format csv >merged.csv || die "export of merged.db failed"
rows=$(($(wc -l <whole.csv) - 1))
[ "$rows" -ge 6 ] || die "unsharded sweep has only $rows runs (expected 6)"
cmp -s whole.csv merged.csv || { diff whole.csv merged.csv | head -10 >&2; die "merged v_runs differs from the unsharded sweep"; }
say "merged v_runs ($rows runs) byte-identical to the unsharded sweep"
jobs_started=()
