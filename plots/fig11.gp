# plots/fig11.gp: paper Fig. 11 — decode throughput (a) and accepted length (b) of each draft
# policy, normalised to SpecInfer, per dataset and over all configurations (arithmetic mean
# over the devices and targets of each group). Data: fig11.csv (view fig11). has_ci (set by
# `leversim figures`): 1 when the view gives ratio_lo, ratio_hi (interval of the throughput
# ratio; tau_ratio_lo, tau_ratio_hi for tau when has_tau_ci): whiskers from the mean of the
# lower to the mean of the upper ends of the bar's configurations.
load plotdir.'/common.gp'
if (!exists("has_ci")) { has_ci = 0 }
if (!exists("has_tau_ci")) { has_tau_ci = 0 }
series = only(systems, 'sd-chain specinfer sequoia eagle2 opt-tree lever-conv-draft lever')
scol = 'system'
sercol(s) = syscol(s)
serpat(s) = syspat(s)
groups = datasets
gkey(x) = strcol('dataset')
glabel(s) = nice(s)
allgroup = 1
sc = 1
set multiplot layout 1,2 margins 0.08,0.99,0.1,0.78 spacing 0.1,0 \
  title 'Fig. 11 — Draft policies normalised to SpecInfer (mean over devices and targets)' font ',16'
banner_y = 0.925
load plotdir.'/banner.gp'
set xtics scale 0 nomirror font ',12'
set yrange [0:*]
set offsets 0, 0, graph 0.25, 0
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#404040' front
set key top left horizontal maxrows 2 font ',12' samplen 2 opaque box width -2
do for [panel = 1:2] {
  col = panel == 1 ? 'tps_vs_specinfer' : 'tau_vs_specinfer'
  locol = panel == 1 ? (has_ci ? 'ratio_lo' : '') : (has_tau_ci ? 'tau_ratio_lo' : '')
  hicol = panel == 1 ? (has_ci ? 'ratio_hi' : '') : (has_tau_ci ? 'tau_ratio_hi' : '')
  showkey = panel == 1
  set title (panel == 1 ? '(a) decode throughput / SpecInfer' : '(b) accepted length τ / SpecInfer') font ',13'
  set ylabel (panel == 1 ? 'throughput relative to SpecInfer' : 'τ relative to SpecInfer') font ',12'
  load plotdir.'/bars.gp'
  unset key
  unset label 101; unset label 102; unset label 103
}
unset multiplot
