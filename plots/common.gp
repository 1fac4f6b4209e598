# plots/common.gp: shared by every figure script (each loads it first).
# Set by `leversim figures` with -e: fmt ('png' | 'svg'), out (image file), csv (data file
# exported from the results database), plotdir (this folder), and the category lists found
# in the data, in the paper's order: devices, models, datasets, systems (maps, lmheads).
if (!exists("fmt")) fmt = 'png'
if (fmt eq 'svg') {
  set terminal svg size 1200,800 fixed enhanced font 'Sans,14' background rgb 'white'
} else {
  if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1200,800 enhanced font 'Sans,14' background rgb 'white'
  } else {
    set terminal png size 1200,800 enhanced font 'Sans,12' background rgb 'white'
  }
}
set output out
set encoding utf8
set datafile separator comma
set datafile columnheaders
set datafile missing NaN  # filtered-out rows (NaN) do not break lines
set border lw 1.2
set grid ytics lc rgb '#d0d0d0' lw 1 dt 1
set style fill solid 0.85 border rgb '#303030'
set key noautotitle reverse Left  # sample first, then its text
# The first CSV row is a header; columns are read by name (column('x'), strcol('x')).

# idx(s, list): 1-based position of word s in the blank-separated list, 0 when absent.
idx(s, list) = sum [i=1:words(list)] (word(list, i) eq s ? i : 0)
# only(list, keep): the words of list that are also in keep, in list's order.
only(list, keep) = (tmp_only = '', sum [i=1:words(list)] (idx(word(list, i), keep) > 0 ? \
  (tmp_only = tmp_only.' '.word(list, i), 0) : 0), tmp_only)

# Display names (ids not listed show as they are).
nice(s) = \
  s eq 'oneplus-12' ? 'OnePlus 12' : s eq 'honor-500-pro' ? 'Honor 500 Pro' : \
  s eq 'honor-magic-v5' ? 'Honor Magic V5' : s eq 'rtx-3090' ? 'RTX 3090' : \
  s eq 'galaxy-s23' ? 'Galaxy S23' : s eq 'pixel-9' ? 'Pixel 9' : s eq 'vivo-x100-pro' ? 'vivo X100 Pro' : \
  s eq 'llama-3.1-8b' ? 'Llama-3.1-8B' : s eq 'qwen3-4b' ? 'Qwen3-4B' : s eq 'qwen3-8b' ? 'Qwen3-8B' : \
  s eq 'qwen3-14b' ? 'Qwen3-14B' : s eq 'mt-bench' ? 'MT-Bench' : s eq 'humaneval' ? 'HumanEval' : \
  s eq 'mbpp' ? 'MBPP' : s eq 'gsm8k' ? 'GSM8K' : \
  s eq 'ar-mem' ? 'AR (in DRAM)' : s eq 'ar-flash' ? 'AR (flash)' : s eq 'sd-chain' ? 'Chain SD' : \
  s eq 'specinfer' ? 'SpecInfer' : s eq 'sequoia' ? 'Sequoia' : s eq 'eagle2' ? 'EAGLE-2' : \
  s eq 'opt-tree' ? 'OPT-Tree' : s eq 'lever' ? 'Lever' : s eq 'lever-no-prune' ? 'Lever w/o pruning' : \
  s eq 'lever-conv-draft' ? 'Lever w/ conv. draft' : s eq 'lever-npu-map' ? 'Lever w/ NPU-only map' : \
  s eq 'lever-draft-only' ? 'Lever draft only' : \
  s eq 'npu' ? 'single-node NPU' : s eq 'cpu' ? 'single-node CPU' : s eq 'npu-batch' ? 'batch-aware NPU' : \
  s eq 'eager-npu' ? 'eager NPU' : s eq 'demand-npu' ? 'on-demand NPU' : s eq 'demand-cpu' ? 'on-demand CPU' : s
# Short dataset names for crowded axes.
short(s) = s eq 'mt-bench' ? 'MT' : s eq 'humaneval' ? 'HE' : s eq 'mbpp' ? 'MBPP' : \
  s eq 'gsm8k' ? 'GSM' : s

# One colour per system (the same in every figure), then a cycle for anything else.
palette8 = '#4e79a7 #f28e2b #59a14f #b07aa1 #76b7b2 #edc948 #9c755f #ff9da7'
syscol(s) = s eq 'lever' ? '#d62728' : s eq 'ar-flash' ? '#7f7f7f' : s eq 'ar-mem' ? '#bdbdbd' : \
  s eq 'sd-chain' ? '#9c755f' : s eq 'specinfer' ? '#4e79a7' : s eq 'sequoia' ? '#76b7b2' : \
  s eq 'eagle2' ? '#f28e2b' : s eq 'opt-tree' ? '#59a14f' : s eq 'lever-no-prune' ? '#ff9da7' : \
  s eq 'lever-conv-draft' ? '#b07aa1' : s eq 'lever-npu-map' ? '#edc948' : \
  s eq 'lever-draft-only' ? '#f1a3a3' : '#555555'
nthcol(i) = word(palette8, (i - 1) % 8 + 1)
