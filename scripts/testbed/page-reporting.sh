# scripts/testbed/page-reporting.sh: sourced by run.sh and protocol.sh (not run): a VM host
# effect held back while a testbed run measures. A VM guest with free page reporting
# (virtio-balloon) hands memory that stays free back to its host, and a cold read that lands in
# such memory pays a host fault per page, which the guest sees as the reading thread's CPU time:
# 0.44 to 0.64 s more for the 766 MB target when its memory sat free 2.5 s (docs/VALIDATION.md
# §3.15; the probe freed.c, removed in issue 32, git show eafd053:scripts/testbed/probe/freed.c).
# A phone has no host, so the model has no such term. When the kernel lets us (root, a writable
# min_free_ms), memory is reported only after a minute free while the run measures, and the
# setting is put back when the calling script exits (its EXIT trap). TB_REUSE set: nothing is
# measured, nothing changed. $1: the calling script's name, for the message.
report=/sys/module/page_reporting/parameters/min_free_ms
if [ -w "$report" ] && [ -z "${TB_REUSE:-}" ]; then
  report_was=$(cat "$report")
  trap 'echo "$report_was" > "$report" 2>/dev/null || true' EXIT
  echo 60000 > "$report"
  echo "$1: free page reporting held back during the run ($report: $report_was -> 60000 ms; restored on exit)" >&2
fi
