# plots/fig13.gp: paper Fig. 13 — draft-stage latency per decode cycle with single-node NPU,
# single-node CPU and batch-aware NPU scheduling of the draft (and Lever's CPU/NPU mapping),
# per target and dataset; (b) the resulting decode throughput. Data: fig13.csv (view fig13).
load plotdir.'/common.gp'
series = only('npu cpu npu-batch lever', maps)  # the paper's order, then any other
do for [v in maps] { if (idx(v, series) == 0) { series = series.' '.v } }
scol = 'map'
sercol(s) = s eq 'npu' ? c_blue : s eq 'cpu' ? c_green : s eq 'npu-batch' ? c_sky : s eq 'lever' ? c_red : '#555555'
groups = ''
do for [m in models] { do for [s in datasets] { groups = groups.' '.m.'/'.s } }
gkey(x) = strcol('model').'/'.strcol('dataset')
glabel(g) = nice(g[1:strstrt(g, '/') - 1])."\n".nice(g[strstrt(g, '/') + 1:])
allgroup = 0
set multiplot layout 2,1 margins 0.08,0.98,0.1,0.77 spacing 0,0.14 \
  title 'Fig. 13 — Draft-stage latency by draft scheduling ('.nice(word(devices, 1)).')' font ',16'
banner_y = 0.925
load plotdir.'/banner.gp'
set xtics scale 0 nomirror font ',12'
set yrange [0:*]
set offsets 0, 0, graph 0.25, 0
set key top left horizontal maxrows 1 font ',12' samplen 2 opaque box
do for [panel = 1:2] {
  col = panel == 1 ? 'draft_s_mean' : 'throughput_tps'
  sc = panel == 1 ? 1000 : 1
  showkey = panel == 1
  set title (panel == 1 ? '(a) draft-stage latency per cycle' : '(b) decode throughput') font ',13'
  set ylabel (panel == 1 ? 'draft latency (ms per cycle)' : 'decode throughput (tokens/s)') font ',12'
  load plotdir.'/bars.gp'
  unset key
  unset label 101; unset label 102; unset label 103
}
unset multiplot
