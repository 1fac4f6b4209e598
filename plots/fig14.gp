# plots/fig14.gp: paper Fig. 14 — output-projection (LM head) latency per decode cycle: eager
# on the NPU for every tree node vs on demand (accepted path only) on the NPU or the CPU, for
# each target and dataset; (b) its share of the cycle. Data: fig14.csv (view fig14).
load plotdir.'/common.gp'
series = only('eager-npu demand-npu demand-cpu', lmheads)  # the paper's order, then any other
do for [v in lmheads] { if (idx(v, series) == 0) { series = series.' '.v } }
scol = 'lmhead'
sercol(s) = s eq 'eager-npu' ? c_blue : s eq 'demand-npu' ? c_sky : s eq 'demand-cpu' ? c_red : '#555555'
groups = ''
do for [m in models] { do for [s in datasets] { groups = groups.' '.m.'/'.s } }
gkey(x) = strcol('model').'/'.strcol('dataset')
glabel(g) = nice(g[1:strstrt(g, '/') - 1])."\n".nice(g[strstrt(g, '/') + 1:])
allgroup = 0
set multiplot layout 2,1 margins 0.08,0.98,0.1,0.77 spacing 0,0.14 \
  title 'Fig. 14 — Output-projection latency by placement ('.nice(word(devices, 1)).')' font ',16'
banner_y = 0.925
load plotdir.'/banner.gp'
set xtics scale 0 nomirror font ',12'
set yrange [0:*]
set offsets 0, 0, graph 0.25, 0
set key top left horizontal maxrows 1 font ',12' samplen 2 opaque box
do for [panel = 1:2] {
  col = panel == 1 ? 'lmhead_s_mean' : 'share_lmhead'
  sc = panel == 1 ? 1000 : 100
  showkey = panel == 1
  set title (panel == 1 ? '(a) output-projection latency per cycle' : '(b) share of the decode cycle') font ',13'
  set ylabel (panel == 1 ? 'LM-head latency (ms per cycle)' : 'LM head / cycle time (%)') font ',12'
  load plotdir.'/bars.gp'
  unset key
  unset label 101; unset label 102; unset label 103
}
unset multiplot
