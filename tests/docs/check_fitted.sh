#!/usr/bin/env bash
# tests/docs/check_fitted.sh ROOT: no value is fitted to a result the paper reports.
# The paper's results (src:lever-paper, src:lever-html, src:lever-notes: the headline speedups,
# Table 1, the figures) are what the replay predicts; a profile, model, dataset or experiment
# value fitted to one of them would make that prediction circular. Fails (exit 1, one line per
# finding) when a YAML line's annotation says `calibrated`/`fitted`/`tuned` and names one of
# those results: a Lever source id, "Table 1", "Fig. N", "headline", or the 2.93x / 1.50x means.
# Files checked: every YAML file git tracks (or would track) under devices/, workloads/,
# runner/experiments/ and tests/ (fixtures must not teach the habit either).
set -u
root=${1:-.}
cd "$root" || { echo "check_fitted: cannot enter $root" >&2; exit 2; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files --cached --others --exclude-standard -- 'devices/*.yaml' 'workloads/*.yaml' \
            'runner/experiments/*.yaml' 'tests/*.yaml')
else
  files=$(find devices workloads runner/experiments tests -name '*.yaml' 2>/dev/null)
fi
fail=0
for f in $files; do
  [ -f "$f" ] || continue
  # the annotation is the comment after '#'; a finding needs both a fitting word and a paper result
  hits=$(awk '{ c = index($0, "#"); if (!c) next; a = tolower(substr($0, c));
                if (a ~ /(calibrated|fitted|fit to|tuned)/ &&
                    a ~ /(src[:]lever|table 1|fig\.? ?[0-9]|headline|2\.93|1\.50x)/)
                  printf "%s:%d: %s\n", FILENAME, FNR, $0 }' "$f")
  if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed 's/$/   <- fitted to a result the paper reports/'
    fail=1
  fi
done
exit $fail
