# plots/energy.gp: beyond the paper — energy per generated token (a) and decode throughput
# (b) of every system, per device (arithmetic mean over the targets and datasets of part
# main). Data: energy.csv (view energy: device, system, configs, energy_per_token_j, ...).
load plotdir.'/common.gp'
series = systems
scol = 'system'
sercol(s) = syscol(s)
groups = devices
gkey(x) = strcol('device')
glabel(s) = nice(s)
allgroup = 0
set multiplot layout 2,1 margins 0.08,0.75,0.07,0.87 spacing 0,0.12 \
  title 'Energy per token by system and device (mean over targets and datasets)' font ',16'
set xtics scale 0 nomirror font ',12'
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set key at screen 0.99, screen 0.5 right center vertical font ',12' samplen 2
do for [panel = 1:2] {
  col = panel == 1 ? 'energy_per_token_j' : 'throughput_tps'
  sc = 1
  showkey = panel == 1
  set title (panel == 1 ? '(a) energy per generated token' : '(b) decode throughput') font ',13'
  set ylabel (panel == 1 ? 'energy (J/token)' : 'throughput (tokens/s)') font ',12'
  load plotdir.'/bars.gp'
  unset key
}
unset multiplot
