# plots/fig05.gp: paper Fig. 5 — the budget dilemma on the OnePlus 12: tree budget 4..64.
# (a) target calls per token, verification time per cycle and decode latency per token, each
# normalised to its value at the smallest budget; (b) decode speed and accepted length.
# One row per system, one line style per dataset; every row on the same y scales, so that
# the rows compare. Data: fig05.csv (view fig05).
load plotdir.'/common.gp'
this(y, s) = strcol('system') eq y && strcol('dataset') eq s
stats csv using (column('budget')) nooutput
b0 = STATS_min
b1 = STATS_max
# values at the smallest budget, per system i and dataset k: base_<metric>_<i>_<k>
do for [i = 1:words(systems)] { do for [k = 1:words(datasets)] {
  y = word(systems, i); s = word(datasets, k)
  stats csv using (this(y, s) && column('budget') == b0 ? column('target_calls_per_token') : NaN) nooutput
  eval sprintf('base_c_%d_%d = %.17g', i, k, STATS_records > 0 ? STATS_max : NaN)
  stats csv using (this(y, s) && column('budget') == b0 ? column('verify_s_mean') : NaN) nooutput
  eval sprintf('base_v_%d_%d = %.17g', i, k, STATS_records > 0 ? STATS_max : NaN)
  stats csv using (this(y, s) && column('budget') == b0 ? 1 / column('throughput_tps') : NaN) nooutput
  eval sprintf('base_l_%d_%d = %.17g', i, k, STATS_records > 0 ? STATS_max : NaN)
} }
base(m, i, k) = value(sprintf('base_%s_%d_%d', m, i, k))
# shared y ranges: the largest value of each panel kind over every row
top_rel = 0
do for [i = 1:words(systems)] { do for [k = 1:words(datasets)] {
  y = word(systems, i); s = word(datasets, k)
  stats csv using (this(y, s) ? column('target_calls_per_token') / base('c', i, k) : NaN) nooutput
  top_rel = STATS_records > 0 && STATS_max > top_rel ? STATS_max : top_rel
  stats csv using (this(y, s) ? column('verify_s_mean') / base('v', i, k) : NaN) nooutput
  top_rel = STATS_records > 0 && STATS_max > top_rel ? STATS_max : top_rel
  stats csv using (this(y, s) ? (1 / column('throughput_tps')) / base('l', i, k) : NaN) nooutput
  top_rel = STATS_records > 0 && STATS_max > top_rel ? STATS_max : top_rel
} }
stats csv using (column('throughput_tps')) nooutput
top_tps = STATS_max
stats csv using (column('tau')) nooutput
top_tau = STATS_max
letters = 'abcdefghijkl'
letter(n) = '('.letters[n:n].') '
where = nice(word(models, 1)).' on '.nice(word(devices, 1))
nrows = words(systems)
set multiplot layout nrows,2 margins 0.08,0.92,0.1,0.80 spacing 0.12,0.13 \
  title 'Fig. 5 — Tree budget vs cost and speed: the budget dilemma ('.where.')' font ',16'
banner_y = 0.93
load plotdir.'/banner.gp'
set logscale x 2
set xrange [b0 / 1.15:b1 * 1.15]
set xtics (4, 8, 16, 32, 64, 128) font ',12'
set xlabel 'tree budget (tokens)' font ',12' offset 0,0.5
set key top center horizontal maxrows 1 font ',11' samplen 2.5 width -1
# dash type k = dataset k
dashes = ''
do for [k = 1:words(datasets)] { dashes = dashes.(k > 1 ? ', ' : '').(k == 1 ? 'solid' : k == 2 ? 'dashed' : k == 3 ? 'dotted' : sprintf('dash %d', k)).' = '.nice(word(datasets, k)) }
set label 1 'line style: '.dashes at screen 0.5, screen 0.02 center font ',12'
do for [i = 1:nrows] {
  y = word(systems, i)
  set title letter(2 * i - 1).nice(y).': cost normalised to budget '.sprintf('%g', b0) font ',13'
  set yrange [0:top_rel * 1.3]  # the same in every row; room for the key
  set ylabel 'relative to smallest budget' font ',12'
  unset y2tics; unset y2label; set ytics nomirror font ',12'
  plot for [k = 1:words(datasets)] csv using (this(y, word(datasets, k)) ? column('budget') : NaN):(column('target_calls_per_token') / base('c', i, k)) \
         with lp lw 2.5 pt 7 ps 1.2 lc rgb c_blue dt k title (k == 1 ? 'target calls / token' : ''), \
       for [k = 1:words(datasets)] csv using (this(y, word(datasets, k)) ? column('budget') : NaN):(column('verify_s_mean') / base('v', i, k)) \
         with lp lw 2.5 pt 5 ps 1.2 lc rgb c_orange dt k title (k == 1 ? 'verification time / cycle' : ''), \
       for [k = 1:words(datasets)] csv using (this(y, word(datasets, k)) ? column('budget') : NaN):((1 / column('throughput_tps')) / base('l', i, k)) \
         with lp lw 2.5 pt 9 ps 1.4 lc rgb c_red dt k title (k == 1 ? 'decode latency / token' : '')
  unset label 101; unset label 102; unset label 103
  set title letter(2 * i).nice(y).': decode speed and accepted length' font ',13'
  set yrange [0:top_tps * 1.3]
  set ylabel 'decode speed (tokens/s)' font ',12' tc rgb c_red
  set y2label 'accepted length τ (tokens/cycle)' font ',12' tc rgb c_green
  set y2tics font ',12'
  set y2range [0:top_tau * 1.3]
  plot for [k = 1:words(datasets)] csv using (this(y, word(datasets, k)) ? column('budget') : NaN):(column('throughput_tps')) \
         with lp lw 2.5 pt 7 ps 1.2 lc rgb c_red dt k title (k == 1 ? 'decode speed' : ''), \
       for [k = 1:words(datasets)] csv using (this(y, word(datasets, k)) ? column('budget') : NaN):(column('tau')) axes x1y2 \
         with lp lw 2.5 pt 5 ps 1.2 lc rgb c_green dt k title (k == 1 ? 'accepted length τ' : '')
  unset ylabel; unset y2label
}
unset multiplot
