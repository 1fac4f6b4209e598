# plots/fig04.gp: paper Fig. 4 — verification latency vs verified tokens on a phone NPU
# (oneplus-12, Snapdragon 8 Gen 3; each NPU runtime regime its profile gives, its own first)
# vs a desktop GPU (rtx-3090), for Llama-3.1-8B and Qwen3-8B; (b) speedup of one n-token
# pass over n single-token passes. Data: fig04.csv, computed by `leversim figures` from the
# device and model files (runner/report/curve.c), weights in memory. regimes: the NPU regimes found.
load plotdir.'/common.gp'
if (!exists('regimes')) { regimes = 'static-graph' }
isgpu(d) = d eq 'rtx-3090'
# one curve per (device, NPU regime, model); the GPU has one regime
array CD[16]
array CG[16]
array CM[16]
nc = 0
do for [d in devices] { do for [g = 1:words(regimes)] { do for [m in models] {
  if (!isgpu(d) || g == 1) { nc = nc + 1; CD[nc] = d; CG[nc] = word(regimes, g); CM[nc] = m }
} } }
sel(i) = strcol('device') eq CD[i] && strcol('model') eq CM[i] && (isgpu(CD[i]) || strcol('regime') eq CG[i])
# colour: the processor and regime (own NPU regime vermillion, other blue, GPU green)
curcol(i) = isgpu(CD[i]) ? c_green : CG[i] eq word(regimes, 1) ? c_red : c_blue
# style: the model (first solid with filled circles at 1, 2, 4, ...; second dashed with open
# triangles at 3, 6, 12, ...), so that two curves on top of each other both show
mk(i) = idx(CM[i], models)
pow2(n) = int(n) > 0 && (int(n) & (int(n) - 1)) == 0
marked(i, n) = mk(i) == 1 ? pow2(n) : (int(n) % 3 == 0 && pow2(int(n) / 3))
# line style 10 + i: curve i's line; 30 + i: its markers
do for [i = 1:nc] {
  cw = mk(i) == 1 ? 3.5 : 2
  cdt = mk(i) == 1 ? 1 : 2
  cpt = mk(i) == 1 ? 7 : 8
  ccol = curcol(i)
  set style line 10 + i lw cw lc rgb ccol dt cdt
  set style line 30 + i pt cpt ps 1.4 lc rgb ccol
}
regname(g) = g eq 'q4_0-dynamic' ? 'Q4\_0 dynamic' : g eq 'static-graph' ? 'static graph' : g
set multiplot layout 1,2 margins 0.105,0.97,0.12,0.74 spacing 0.1,0 \
  title "Fig. 4 — Verification latency vs tokens verified in one pass (target weights in memory)" font ',16'
banner_y = 0.925
load plotdir.'/banner.gp'
set xlabel 'tokens verified in one pass'
set xrange [0.9:72]
set logscale x 2
set xtics (1, 2, 4, 8, 16, 32, 64)
# the key, shared by both panels: colours = processors, styles = models
set key at screen 0.5, screen 0.86 center top vertical maxrows 2 font ',11' samplen 3 width -3
npu_d = word(devices, 1)
keys = ''
do for [g = 1:words(regimes)] { keys = keys.' '.g }
do for [panel = 1:2] {
  if (panel == 1) {
    set logscale y 10
    set ylabel 'latency of one pass (ms, log scale)'
    set title '(a) latency of one verification pass'
    ycol = 'latency_ms'
  } else {
    unset logscale y
    set yrange [0:*]
    set ylabel 'speedup over single-token passes (n·t(1)/t(n))'
    set title '(b) speedup over generating the tokens one by one'
    ycol = 'speedup'
  }
  plot for [i = 1:nc] csv using (sel(i) ? column('tokens') : NaN):(column(ycol)) \
         with lines ls 10 + i notitle, \
       for [i = 1:nc] csv using (sel(i) && marked(i, column('tokens')) ? column('tokens') : NaN):(column(ycol)) \
         with points ls 30 + i notitle, \
       (panel == 2 ? x : NaN) with lines lc rgb '#777777' dt 3 lw 1.5 notitle, \
       NaN with lines lw 3.5 lc rgb c_red title nice(npu_d).' NPU, '.regname(word(regimes, 1)).' (default)', \
       NaN with lp lw 3.5 pt 7 ps 1.4 lc rgb '#303030' title nice(word(models, 1)), \
       for [g = 2:words(regimes)] NaN with lines lw 3.5 lc rgb c_blue title nice(npu_d).' NPU, '.regname(word(regimes, g)), \
       NaN with lp lw 2 dt 2 pt 8 ps 1.4 lc rgb '#303030' title nice(word(models, 2)), \
       NaN with lines lw 3.5 lc rgb c_green title nice(word(devices, 2)).' GPU', \
       NaN with lines lc rgb '#777777' dt 3 lw 1.5 title 'ideal: flat latency (b)'
  unset key
  unset label 101; unset label 102; unset label 103
}
unset multiplot
