# plots/plot.gp: `leversim plot` — any metric against any setting, one line per group, each
# point with its 95 % interval (bootstrap over prompts; points without one have no bar).
# Set with -e by runner/report/plot.c: panels (how many), D[1..panels] (one data file per panel:
# one block per group, the same groups in every panel, columns x position, x text, y, lo, hi),
# P[1..panels] (panel titles; "" for one), out (PNG), xlabel, ylabel, title, subtitle (database and filters),
# groups (number of blocks), T[1..groups] (group names), numeric (1: x is a number),
# logx (1: x positive and spanning >= 16x: log scale, base 2), capped (how many points'
# x took effect as another value: column 6 is 1 for those, circled and explained below the title).
pc = panels > 1 ? ceil(sqrt(panels)) : 1
pr = panels > 1 ? ceil(panels * 1.0 / pc) : 1
W = pc > 1 ? 650 * pc : 1000
H = pr > 1 ? 100 + 480 * pr : 650
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo size W,H enhanced font 'Sans,13' background rgb 'white'
} else {
  set terminal png size W,H enhanced font 'Sans,11' background rgb 'white'
}
set output out
set encoding utf8
set datafile missing NaN
set border 3 lw 1.2
set tics nomirror
set grid ytics lc rgb '#d8d8d8'
set label 1 title at screen 0.5, screen 0.955 center font ',15' noenhanced
set label 2 subtitle.' — bars: 95 % intervals over prompts' at screen 0.5, screen 0.91 center \
  font ',10' tc rgb '#404040' noenhanced
if (capped > 0) set label 3 'circled: the value of '.xlabel.' took effect as another (run_settings effective.'.xlabel.')' \
  at screen 0.5, screen 0.875 center font ',10' tc rgb '#A00000' noenhanced
set tmargin 5
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced offset 1,0
set lmargin 11
set bmargin 4
set key outside right top noenhanced samplen 2 spacing 1.2
if (groups == 1 && T[1] eq '') set key off
if (logx) set logscale x 2
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.02
# Okabe-Ito colours, distinguishable under the common colour-vision deficiencies.
array C[8] = ['#0072B2', '#D55E00', '#009E73', '#E69F00', '#56B4E9', '#CC79A7', '#000000', '#F0E442']
col(i) = C[(i - 1) % 8 + 1]
# error bars first (vectors with flat heads: gnuplot 5.4's yerrorbars leave a white gap at the
# point), the lines and points over them; x ticks at the values themselves
# categories are not a scale: points without lines, labels slanted with room below
if (!numeric) { set xtics rotate by -25 left; set bmargin 6; set offsets graph 0.08, graph 0.08, graph 0.06, graph 0.02 }
style = numeric ? 'linespoints' : 'points' 
# several panels: one plot each (the same groups and colours), titled by its panel's values
if (panels > 1) { set tmargin 6; set multiplot layout pr, pc }
do for [p = 1:panels] {
  if (panels > 1) { set title P[p] noenhanced offset 0,-1.2 }
  plot for [i = 1:groups] D[p] index (i - 1) using 1:4:(0):($5 - $4) with vectors heads \
         size screen 0.006,90 lw 1.5 lc rgb col(i) notitle, \
       for [i = 1:groups] D[p] index (i - 1) using 1:3:xtic(2) with @style lw 2 pt 7 ps 1.3 \
         lc rgb col(i) title T[i], \
       for [i = 1:groups] D[p] index (i - 1) using 1:($6 > 0 ? $3 : NaN) with points pt 6 ps 2.8 lw 2 \
         lc rgb '#A00000' notitle
}
if (panels > 1) { unset multiplot }
