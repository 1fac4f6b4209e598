# plots/fig10.gp: paper Fig. 10 — decode throughput of every system on every device x model x
# dataset configuration, normalised to Lever (one panel per device, groups by model and
# dataset, Lever's absolute tokens/s above its bars); the claim and its verdict under the title.
# Data: fig10.csv (view fig10: device, model, dataset, system, throughput_tps, vs_lever, ...;
# with ratio_lo, ratio_hi when the database has intervals). has_ci: 1 when it has them
# (set by `leversim figures`): error bars from ratio_lo to ratio_hi.
load plotdir.'/common.gp'
if (!exists("has_ci")) { has_ci = 0 }
# The systems drawn (the others stay in the CSV): baselines, conventional SD, Lever; the same
# list as the verdict's (runner/cli/cmd_figures.c, fig10_baselines).
sel = only(systems, 'ar-flash sd-chain specinfer sequoia eagle2 opt-tree lever')
J = words(sel)
ND = words(datasets)
G = words(models) * ND
# x of system j in group (model m, dataset s): groups of J bars and one gap
gx(m, s) = ((idx(m, models) - 1) * ND + idx(s, datasets) - 1) * (J + 1)
xpos(j) = gx(strcol('model'), strcol('dataset')) + j
on(d, j) = strcol('device') eq d && strcol('system') eq word(sel, j)
# the top of the bars, or of their whiskers (a row without an interval counts by its bar)
top(x) = has_ci ? (column('ratio_hi') == column('ratio_hi') ? column('ratio_hi') : x) : x
stats csv using (idx(strcol('system'), sel) > 0 ? top(column('vs_lever')) : NaN) nooutput
ytop = STATS_max > 1.2 ? STATS_max * 1.45 : 1.75
nrows = words(devices)
set multiplot layout nrows,1 margins 0.075,0.99,0.04,0.72 spacing 0,0.08 \
  title "Fig. 10 — Decode throughput normalised to Lever" font ',16'
banner_y = 0.935
load plotdir.'/banner.gp'
abbrev = ''
do for [s in datasets] { abbrev = abbrev.(abbrev eq '' ? '' : ',  ').short(s).(short(s) eq nice(s) ? '' : ' = '.nice(s)) }
set label 104 'Datasets: '.abbrev.".   Numbers above Lever's bars: its tokens/s".(has_ci ? '.   Whiskers: 95 % interval' : '') \
  at screen 0.5, screen 0.785 center font ',12' front
set boxwidth 0.9
set yrange [0:ytop]
set xrange [-0.5:G * (J + 1) + 1.2]
set ytics 0.5 font ',12'
set ylabel 'throughput / Lever' font ',12' offset 1.2,0
set xtics scale 0 font ',12' nomirror
set xtics ()
do for [m in models] { do for [s in datasets] { set xtics add (short(s) gx(m, s) + (J + 1) / 2.0) } }
unset arrow
do for [k = 1:words(models) - 1] { set arrow from k * ND * (J + 1), graph 0 to k * ND * (J + 1), graph 1 nohead dt 3 lc rgb '#808080' }
do for [k = 1:words(models)] { set label 110 + k nice(word(models, k)) at (k - 1) * ND * (J + 1) + ND * (J + 1) / 2.0, graph 0.9 center font ',12' }
set key at screen 0.5, screen 0.835 center horizontal maxrows 1 font ',12' samplen 2 width 0
# error bars only when the columns exist (a clause naming a missing column would fail)
# 336 bars: whiskers as plain vectors, no caps (gnuplot 5.4's yerrorbars leave a white gap
# around the point, which read as a white blob on every bar)
ci = has_ci ? ", for [j = 1:J] csv using (on(d, j) ? xpos(j) : NaN):(column('ratio_lo')):(0):(column('ratio_hi') - column('ratio_lo')) with vectors nohead lc rgb '#202020' lw 0.8 notitle" : ''
do for [r = 1:nrows] {
  d = word(devices, r)
  set title nice(d) font ',13' offset 0,-0.6
  plot for [j = 1:J] csv using (on(d, j) ? xpos(j) : NaN):(column('vs_lever')) with boxes \
         lc rgb syscol(word(sel, j)) title (r == 1 ? nice(word(sel, j)) : '') @ci, \
       csv using (on(d, idx('lever', sel)) ? xpos(idx('lever', sel)) : NaN):(column('vs_lever')):(sprintf('%.2f', column('throughput_tps'))) \
         with labels center offset 0,0.7 font ',10' notitle
  unset key
  unset label 101; unset label 102; unset label 103; unset label 104
}
unset multiplot
