# plots/energy.gp: beyond the paper — energy per generated token (a) and decode throughput
# (b) of every system, per device (arithmetic mean over the targets and datasets of part
# main: every bar averages the device's configurations, AR in DRAM only those whose target
# fits in DRAM; the counts are said once in the subtitle, not above 66 bars). In (b) the axis
# ends at 1.3x the fastest flash-offloaded system: AR in DRAM is cut there, its value printed. Data: energy.csv (view energy: device, system, configs,
# energy_per_token_j, throughput_tps).
load plotdir.'/common.gp'
series = systems
scol = 'system'
sercol(s) = syscol(s)
serpat(s) = syspat(s)
groups = devices
gkey(x) = strcol('device')
glabel(s) = nice(s)
allgroup = 0
ncol = 'configs'
# the counts, said once: n configurations per device, fewer for AR in DRAM
stats csv using (strcol('system') ne 'ar-mem' ? column('configs') : NaN) nooutput
n_all = int(STATS_max)
undefine STATS_*
stats csv using (strcol('system') eq 'ar-mem' ? column('configs') : NaN) nooutput
n_mem = exists('STATS_max') ? int(STATS_max) : 0
stats csv using (strcol('system') ne 'ar-mem' ? column('throughput_tps') : NaN) nooutput
cap_b = STATS_max * 1.3
set multiplot layout 2,1 margins 0.08,0.78,0.07,0.76 spacing 0,0.12 \
  title 'Energy per token by system and device (mean over targets and datasets)' font ',16'
banner_y = 0.925
load plotdir.'/banner.gp'
set label 104 sprintf('Each bar: mean over the %d configurations of a device%s', n_all, \
  n_mem > 0 && n_mem < n_all ? sprintf(' (AR in DRAM: the %d whose target fits in DRAM)', n_mem) : '') \
  at screen 0.43, screen 0.86 center font ',12'
set xtics scale 0 nomirror font ',12'
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set key at screen 0.79, screen 0.45 left center vertical maxrows 16 font ',12' samplen 2
do for [panel = 1:2] {
  col = panel == 1 ? 'energy_per_token_j' : 'throughput_tps'
  sc = 1
  showkey = panel == 1
  showcount = 0
  ycap = panel == 2 ? cap_b : 0
  if (panel == 1) { set yrange [0:*] }
  set title (panel == 1 ? '(a) energy per generated token' : '(b) decode throughput (axis cut: a taller bar shows its value)') font ',13'
  set ylabel (panel == 1 ? 'energy (J/token)' : 'throughput (tokens/s)') font ',12'
  load plotdir.'/bars.gp'
  unset key
  unset label 101; unset label 102; unset label 103; unset label 104
}
unset multiplot
