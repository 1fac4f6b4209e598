# plots/energy.gp: beyond the paper — energy per generated token (a) and decode throughput
# (b) of every system, per device (arithmetic mean over the targets and datasets of part
# main; n above each bar: the configurations averaged, fewer for AR in DRAM, which runs only
# the targets that fit in DRAM). Data: energy.csv (view energy: device, system, configs,
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
set multiplot layout 2,1 margins 0.08,0.78,0.07,0.80 spacing 0,0.12 \
  title 'Energy per token by system and device (mean over targets and datasets)' font ',16'
banner_y = 0.925
load plotdir.'/banner.gp'
set xtics scale 0 nomirror font ',12'
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set key at screen 0.79, screen 0.45 left center vertical maxrows 16 font ',12' samplen 2
do for [panel = 1:2] {
  col = panel == 1 ? 'energy_per_token_j' : 'throughput_tps'
  sc = 1
  showkey = panel == 1
  showcount = 1
  set title (panel == 1 ? '(a) energy per generated token' : '(b) decode throughput').' (n above a bar: configurations averaged)' font ',13'
  set ylabel (panel == 1 ? 'energy (J/token)' : 'throughput (tokens/s)') font ',12'
  load plotdir.'/bars.gp'
  unset key
  unset label 101; unset label 102; unset label 103
}
unset multiplot
