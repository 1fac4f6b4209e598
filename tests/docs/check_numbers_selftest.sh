#!/usr/bin/env bash
# tests/docs/check_numbers_selftest.sh LEVERSIM ROOT: check_numbers.pl can pass and can fail.
# One ar-flash run (tau is exactly 1, one token per cycle) into a fresh database; a right
# number passes, a wrong one, a filter that matches nothing, and a text with no checked number
# fail. The documents themselves are checked against the full replay by .ci/run.
set -u
bin=$1; root=$2
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
"$bin" run --device oneplus-12 --model qwen3-4b --dataset gsm8k --system ar-flash --prompts 1 \
  --tokens 2 --db "$tmp/t.db" >/dev/null || { echo "selftest: the run failed"; exit 1; }
chk() { perl "$root/tests/docs/check_numbers.pl" "$bin" "$tmp/t.db" "$tmp/doc.md" >"$tmp/out" 2>&1; }
fail=0
printf 'tau is 1.00<!-- q: v_runs tau system=ar-flash --> and 100 %%<!-- q: v_runs tau system=ar-flash x100 -->\n' >"$tmp/doc.md"
chk || { echo "selftest: a right number failed:"; cat "$tmp/out"; fail=1; }
printf 'tau is 1.10<!-- q: v_runs tau system=ar-flash -->\n' >"$tmp/doc.md"
chk && { echo "selftest: a wrong number passed"; fail=1; }
grep -q "the text says 1.10" "$tmp/out" || { echo "selftest: no message naming the number"; fail=1; }
printf 'tau is 1.00<!-- q: v_runs tau system=lever -->\n' >"$tmp/doc.md"
chk && { echo "selftest: a query matching no row passed"; fail=1; }
tps=$(sqlite3 "$tmp/t.db" "SELECT throughput_tps FROM v_runs" 2>/dev/null)
if [ -n "$tps" ]; then # invavg is the mean of 1/x: 100/tps, to two decimals
  printf '%.2f<!-- q: v_runs throughput_tps system=ar-flash invavg x100 -->\n' "$(awk -v t="$tps" 'BEGIN { print 100 / t }')" >"$tmp/doc.md"
  chk || { echo "selftest: invavg is not the mean of 1/x:"; cat "$tmp/out"; fail=1; }
  printf '%.2f<!-- q: v_runs throughput_tps system=ar-flash avg x100 -->\n' "$(awk -v t="$tps" 'BEGIN { print 100 / t }')" >"$tmp/doc.md"
  chk && { echo "selftest: avg passed where invavg's value was written"; fail=1; }
fi
# --view-db: a view's markers read another database (the regime study's, in .ci/run)
"$bin" run --device oneplus-12 --model qwen3-4b --dataset gsm8k --system sd-chain --prompts 1 \
  --tokens 2 --db "$tmp/t2.db" >/dev/null || { echo "selftest: the second run failed"; exit 1; }
printf '1<!-- q: v_runs device count system=sd-chain -->\n' >"$tmp/doc.md"
chk && { echo "selftest: a row of the other database was found without --view-db"; fail=1; }
perl "$root/tests/docs/check_numbers.pl" --view-db "v_runs=$tmp/t2.db" "$bin" "$tmp/t.db" "$tmp/doc.md" >"$tmp/out" 2>&1 ||
  { echo "selftest: --view-db did not read the other database:"; cat "$tmp/out"; fail=1; }
printf 'no checked number here\n' >"$tmp/doc.md"
chk && { echo "selftest: a document without checked numbers passed"; fail=1; }
exit $fail
