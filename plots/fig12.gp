# plots/fig12.gp: paper Fig. 12 — the pruning ablation: Lever with and without early-exit
# pruning. (a) share of verification compute spent on rejected nodes, (b) verified tokens per
# cycle (verification compute), (c) throughput relative to no pruning; per dataset and over
# all configurations (arithmetic means over devices and targets). Data: fig12.csv.
load plotdir.'/common.gp'
series = only(systems, 'lever-no-prune lever')
scol = 'system'
sercol(s) = syscol(s)
serpat(s) = syspat(s)
groups = datasets
gkey(x) = strcol('dataset')
glabel(s) = nice(s)
allgroup = 1
set multiplot layout 1,3 margins 0.07,0.99,0.16,0.78 spacing 0.09,0 \
  title 'Fig. 12 — Early-exit pruning ablation (mean over devices and targets)' font ',16'
banner_y = 0.925
load plotdir.'/banner.gp'
set xtics scale 0 nomirror font ',11' rotate by 30 right
set yrange [0:*]
set offsets 0, 0, graph 0.2, 0
set key top left font ',12' samplen 2 opaque box
do for [panel = 1:3] {
  col = panel == 1 ? 'wasted_verify' : panel == 2 ? 'verify_tokens_mean' : 'tps_vs_no_prune'
  sc = panel == 1 ? 100 : 1
  showkey = panel == 1
  set title (panel == 1 ? '(a) wasted verification compute' : panel == 2 ? '(b) verified tokens per cycle' : '(c) throughput / no pruning') font ',13'
  set ylabel (panel == 1 ? 'share on rejected nodes (%)' : panel == 2 ? 'tokens verified per cycle' : 'throughput relative to no pruning') font ',12'
  if (panel == 3) { set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#404040' front }
  load plotdir.'/bars.gp'
  unset key
  unset label 101; unset label 102; unset label 103
}
unset multiplot
