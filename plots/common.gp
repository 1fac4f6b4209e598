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

# Colours: the Okabe-Ito palette (distinguishable with every common colour-vision deficiency),
# one per system, the same in every figure; Lever's variants share Lever's vermillion and are
# told apart by a hatch pattern (syspat), Lever's conventional-draft variant is purple.
c_black = '#000000'; c_orange = '#E69F00'; c_sky = '#56B4E9'; c_green = '#009E73'
c_yellow = '#F0E442'; c_blue = '#0072B2'; c_red = '#D55E00'; c_purple = '#CC79A7'
c_grey = '#7F7F7F'; c_light = '#C8C8C8'
palette8 = c_blue.' '.c_orange.' '.c_green.' '.c_purple.' '.c_sky.' '.c_red.' '.c_yellow.' '.c_grey
# Neighbours in the systems' order (ar-flash, sd-chain, specinfer, sequoia, eagle2, opt-tree,
# lever) never share a hue family: grey, yellow, blue, green, orange, sky, vermillion.
syscol(s) = s eq 'lever' ? c_red : s eq 'ar-flash' ? c_grey : s eq 'ar-mem' ? c_light : \
  s eq 'sd-chain' ? c_yellow : s eq 'specinfer' ? c_blue : s eq 'sequoia' ? c_green : \
  s eq 'eagle2' ? c_orange : s eq 'opt-tree' ? c_sky : s eq 'lever-conv-draft' ? c_purple : \
  s[1:6] eq 'lever-' ? c_red : '#555555'
# Fill: 0 solid; else a gnuplot hatch pattern (4, 5: diagonal; 1: cross-hatched).
syspat(s) = s eq 'lever-no-prune' ? 4 : s eq 'lever-npu-map' ? 5 : s eq 'lever-draft-only' ? 1 : 0
nthcol(i) = word(palette8, (i - 1) % 8 + 1)
serpat(s) = 0  # bars.gp's fill per series: solid unless a script says otherwise

# The paper's claim and the verdict on this figure's data, set by `leversim figures`:
# claim, verdict (and verdict2, its second line when long), holds (1, 0, -1 not checked).
if (!exists('claim')) claim = ''
if (!exists('verdict')) verdict = ''
if (!exists('verdict2')) verdict2 = ''
if (!exists('holds')) holds = -1
verdict_col = holds == 1 ? c_blue : holds == 0 ? c_red : '#404040'  # holds blue, fails vermillion
