#!/usr/bin/env bash
# scripts/testbed/kernel-form.sh BASE_PROFILE WARM_CSV [CALIBRATE ARGS...]: chooses the form of
# the layers' blocked CPU kernel for a testbed base profile from the warm rows alone, and rewrites
# BASE_PROFILE with it (docs/VALIDATION.md §3.12).
# From two tokens on, llama.cpp's x86 CPU backend has streamed the layers' weights once per group
# of four tokens on one host (run E's: the tile probe, §3.7) and once for any batch on another
# (the AMD EPYC host of 2026-11-27), or in tiles of four over every block of weight rows with a
# pass of its own for the tokens left over (`tiles`, tinyBLAS's way, §3.14); one token always
# takes its own GEMV (cpu.single_bandwidth, devices/cpu.c). The three forms, `groups`
# (batch_group as the base states it), `onepass` (batch_group 1000000) and `tiles` (batch_group
# with batch_remainder) and `tiles-rate` (the tiles with the remainder's pass at a rate of its
# own, cpu.remainder_bandwidth, one more free parameter: §3.17) are fitted to WARM_CSV; the one
# with the smallest reduced chi2 (chi2 over its degrees of freedom) is kept. No held-out pass is read. The fits and their reports are left
# beside BASE_PROFILE (kernel-<form>.yaml, kernel-<form>.txt). Exit 65 when no form fits.
# `roofline` (no batch_group: the phone profiles' form, max(W / BW, n f / F)) is a candidate too.
# Each form is fitted as it is (`calibrate --cpu-form base`): calibrate's own choice between the
# roofline and the sum would turn one candidate into another.
# Environment: LEVERSIM (default build/leversim); KERNEL_FORMS, the forms to fit (default all
# five, in the order above; e.g. "groups onepass tiles" for the choice before §3.17).
set -euo pipefail
base=$1; warm=$2; shift 2
LEVERSIM=${LEVERSIM:-build/leversim}
dir=$(dirname "$base")
sed 's/^  batch_group: .*/  batch_group: 1000000          # src:testbed-run: one pass over the weights for any batch of two or more tokens, every token'"'"'s arithmetic added (chosen over groups of four by the warm rows'"'"' fit, scripts\/testbed\/kernel-form.sh, docs\/VALIDATION.md §3.12)/' \
  "$base" > "$dir/base-profile-onepass.yaml"
sed 's/^  batch_group: \([0-9]*\) .*/  batch_group: \1                 # src:testbed-run: tiles of four tokens over every block of weight rows, then the rest in a pass of its own (chosen by the warm rows'"'"' fit, scripts\/testbed\/kernel-form.sh, docs\/VALIDATION.md §3.14)\n  batch_remainder: true          # src:testbed-run: as batch_group (devices\/cpu.c)/' \
  "$base" > "$dir/base-profile-tiles.yaml"
sed 's/^  batch_remainder: true .*/&\n  remainder_bandwidth: 10 GB\/s   # assumed: only the fit'"'"'s start; src:testbed-run: the remainder'"'"'s pass streams at a rate of its own (chosen by the warm rows'"'"' fit, scripts\/testbed\/kernel-form.sh, docs\/VALIDATION.md §3.17)/' \
  "$dir/base-profile-tiles.yaml" > "$dir/base-profile-tiles-rate.yaml"
cp "$base" "$dir/base-profile-groups.yaml"
# The phone replay's form (every shipped profile): no batch_group, so from batched_from on a
# matmul is the roofline, max(W / BW, n f / F) (devices/cpu.c), a candidate like the sums.
sed '/^  batch_group: /d' "$base" > "$dir/base-profile-roofline.yaml"
best=""; best_chi=""
forms=${KERNEL_FORMS:-groups onepass tiles tiles-rate roofline}
for form in $forms; do
  case $form in groups | onepass | tiles | tiles-rate | roofline) ;; *) echo "kernel-form.sh: KERNEL_FORMS: unknown form '$form'" >&2; exit 64 ;; esac
  set +e
  "$LEVERSIM" calibrate --base "$dir/base-profile-$form.yaml" --only cpu --fix max_bandwidth --cpu-form base \
    --llama-bench "$warm" "$@" --out "$dir/kernel-$form.yaml" > "$dir/kernel-$form.txt" 2>&1
  st=$?
  set -e
  chi=$(sed -n 's/^== cpu: .*chi2 \([0-9.e+]*\), dof \([0-9]*\)$/\1 \2/p' "$dir/kernel-$form.txt" | awk '{ printf "%.4g", $1 / $2 }')
  if [ $st -ne 0 ] || [ -z "$chi" ]; then
    echo "$form: not fitted (calibrate exit $st: $(grep -m1 -o 'reduced chi2 [0-9.]*\|out of range[^;]*' "$dir/kernel-$form.txt" || true))"
    continue
  fi
  echo "$form: reduced chi2 $chi"
  if [ -z "$best" ] || awk -v a="$chi" -v b="$best_chi" 'BEGIN { exit !(a < b) }'; then best=$form; best_chi=$chi; fi
done
[ -n "$best" ] || { echo "kernel-form.sh: no form of the layers' kernel explains $warm" >&2; exit 65; }
echo "kept: $best"
cp "$dir/base-profile-$best.yaml" "$base"
