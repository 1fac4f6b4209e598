# plots/fig10.gp: paper Fig. 10 — decode throughput of every system on every device x model x
# dataset configuration, normalised to Lever (one panel per device, groups by model and
# dataset, Lever's absolute tokens/s above its bars); the average speedups in the caption.
# Data: fig10.csv (view fig10: device, model, dataset, system, throughput_tps, vs_lever, ...).
# caption: set by `leversim figures` from view v_summary.
load plotdir.'/common.gp'
if (!exists("caption")) caption = ''
# The systems drawn (the others stay in the CSV): baselines, conventional SD, Lever.
sel = only(systems, 'ar-flash sd-chain specinfer sequoia eagle2 opt-tree lever')
J = words(sel)
ND = words(datasets)
G = words(models) * ND
# x of system j in group (model m, dataset s): groups of J bars and one gap
gx(m, s) = ((idx(m, models) - 1) * ND + idx(s, datasets) - 1) * (J + 1)
xpos(j) = gx(strcol('model'), strcol('dataset')) + j
on(d, j) = strcol('device') eq d && strcol('system') eq word(sel, j)
stats csv using (idx(strcol('system'), sel) > 0 ? column('vs_lever') : NaN) nooutput
ytop = STATS_max > 1.2 ? STATS_max * 1.45 : 1.75
nrows = words(devices)
set multiplot layout nrows,1 margins 0.07,0.99,0.06,(nrows > 1 ? 0.84 : 0.78) spacing 0,0.075 \
  title "Fig. 10 — Decode throughput normalised to Lever (Lever's tokens/s above its bars)\n".caption font ',15'
set boxwidth 0.9
set yrange [0:ytop]
set xrange [-0.5:G * (J + 1) + 0.5]
set ytics 0.5 font ',12'
set ylabel 'throughput / Lever' font ',12'
set xtics scale 0 font ',11' nomirror
set xtics ()
do for [m in models] { do for [s in datasets] { set xtics add (short(s) gx(m, s) + (J + 1) / 2.0) } }
unset arrow
do for [k = 1:words(models) - 1] { set arrow from k * ND * (J + 1), graph 0 to k * ND * (J + 1), graph 1 nohead dt 3 lc rgb '#808080' }
unset label
do for [k = 1:words(models)] { set label nice(word(models, k)) at (k - 1) * ND * (J + 1) + ND * (J + 1) / 2.0, graph 0.9 center font ',12' }
set key at screen 0.5, screen (nrows > 1 ? 0.885 : 0.84) center horizontal maxrows 1 font ',12' samplen 2 width 0
do for [r = 1:nrows] {
  d = word(devices, r)
  set title nice(d) font ',13' offset 0,-0.6
  plot for [j = 1:J] csv using (on(d, j) ? xpos(j) : NaN):(column('vs_lever')) with boxes \
         lc rgb syscol(word(sel, j)) title (r == 1 ? nice(word(sel, j)) : ''), \
       csv using (on(d, idx('lever', sel)) ? xpos(idx('lever', sel)) : NaN):(column('vs_lever')):(sprintf('%.2f', column('throughput_tps'))) \
         with labels rotate by 90 left offset 0,0.3 font ',9' notitle
  unset key
}
unset multiplot
