# plots/sensitivity.gp: beyond the paper — Lever's speedup over the other systems (a) and
# every system's decode throughput (b) against the effective flash read bandwidth, on one
# device/target/dataset. Data: sensitivity.csv (view sensitivity: bandwidth_gbps, system,
# throughput_tps, lever_speedup). profile_bw (set by `leversim figures`): the effective flash
# read bandwidth of the device's own profile, GB/s, marked in both panels.
load plotdir.'/common.gp'
where = nice(word(models, 1)).', '.nice(word(datasets, 1)).' on '.nice(word(devices, 1))
is(y) = strcol('system') eq y && strcol('device') eq word(devices, 1) && strcol('model') eq word(models, 1) && strcol('dataset') eq word(datasets, 1)
others = ''
do for [y in systems] { if (y ne 'lever') { others = others.' '.y } }
set multiplot layout 1,2 margins 0.08,0.98,0.12,0.80 spacing 0.09,0 \
  title 'Sensitivity to flash bandwidth ('.where.')' font ',16'
banner_y = 0.925
load plotdir.'/banner.gp'
if (exists('profile_bw')) {
  set arrow 2 from first profile_bw, graph 0 to first profile_bw, graph 1 nohead dt 4 lw 2 lc rgb '#404040' back
  # along the line, on its left and inside the frame (a label to its right ran over the frame)
  set label 105 sprintf("%s profile: %.2f GB/s", nice(word(devices, 1)), profile_bw) at first profile_bw, graph 0.97 \
    right rotate by 90 offset -0.9,0 font ',11' tc rgb '#404040'
}
set logscale x 2
set xtics (0.25, 0.5, 1, 2, 4, 8, 16) font ',12'
set xlabel 'effective flash read bandwidth (GB/s, log scale)' font ',12'
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set key top right font ',12' samplen 2.5 opaque box
set title "(a) Lever's speedup over each system" font ',13'
set ylabel 'Lever throughput / system throughput' font ',12'
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#404040'
plot for [y in others] csv using (is(y) ? column('bandwidth_gbps') : NaN):(column('lever_speedup')) smooth unique \
  with lp lw 2.5 pt 7 ps 1.3 lc rgb syscol(y) title 'vs '.nice(y)
unset arrow 1
unset label 101; unset label 102; unset label 103
set title '(b) decode throughput' font ',13'
set ylabel 'throughput (tokens/s)' font ',12'
set key top left
plot for [y in systems] csv using (is(y) ? column('bandwidth_gbps') : NaN):(column('throughput_tps')) smooth unique \
  with lp lw 2.5 pt 7 ps 1.3 lc rgb syscol(y) title nice(y)
unset multiplot
