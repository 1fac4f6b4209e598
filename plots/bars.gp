# plots/bars.gp: one grouped bar chart of means (called by fig11-14 and energy, per panel).
# Reads: csv; col (column to average) and sc (factor); gkey(0) (group of the current row, a
# function the caller defines) and groups (word list), allgroup (1: add an 'all' group);
# scol (series column) and series (word list); sercol(s) (colour) and serpat(s) (0: solid,
# else a hatch pattern; common.gp's default: all solid); showkey (1: titles).
# Optional: ncol (a column summed into n per bar, e.g. 'configs'; else n counts the rows)
# with showcount (1: 'n' printed above each bar); locol and hicol (columns whose means give
# an error bar, e.g. 'ratio_lo', 'ratio_hi'; '' or undefined: none).
# Optional: ycap (> 0): the y axis ends there; a taller bar is cut at it and its value printed
# above the cut (one outlier, e.g. AR in DRAM, must not squash the others).
# Error bars are drawn as vectors with flat heads: gnuplot 5.4's yerrorbars leave a white gap
# around the (invisible) point, which read as a blob on every bar.
# Each bar is the arithmetic mean of sc * column(col) over the rows of its group and series
# (across whatever else varies, e.g. devices and targets); absent combinations draw nothing.
if (!exists('ncol')) { ncol = '' }
if (!exists('showcount')) { showcount = 0 }
if (!exists('locol')) { locol = '' }
if (!exists('hicol')) { hicol = '' }
if (!exists('ycap')) { ycap = 0 }
NG = words(groups)
G = NG + (allgroup ? 1 : 0)
J = words(series)
array M[G * J]
array N[G * J]
array LO[G * J]
array HI[G * J]
inbar(g, j) = (g > NG || gkey(0) eq word(groups, g)) && strcol(scol) eq word(series, j)
do for [g = 1:G] { do for [j = 1:J] {
  k = (g - 1) * J + j
  undefine STATS_*
  stats csv using (inbar(g, j) ? sc * column(col) : NaN) nooutput
  M[k] = exists('STATS_mean') ? STATS_mean : NaN
  N[k] = exists('STATS_records') ? STATS_records : 0
  if (ncol ne '') {
    undefine STATS_*
    stats csv using (inbar(g, j) ? column(ncol) : NaN) nooutput
    N[k] = exists('STATS_sum') ? STATS_sum : 0
  }
  LO[k] = NaN; HI[k] = NaN
  if (locol ne '' && hicol ne '') {
    undefine STATS_*
    stats csv using (inbar(g, j) ? sc * column(locol) : NaN) nooutput
    LO[k] = exists('STATS_mean') ? STATS_mean : NaN
    undefine STATS_*
    stats csv using (inbar(g, j) ? sc * column(hicol) : NaN) nooutput
    HI[k] = exists('STATS_mean') ? STATS_mean : NaN
  }
} }
set boxwidth 0.9
set xrange [0:G * (J + 1)]
set xtics ()
do for [g = 1:G] { set xtics add ((g > NG ? 'all' : glabel(word(groups, g))) (g - 1) * (J + 1) + (J + 1) / 2.0) }
bx(t, j) = (int(t) - 1) * (J + 1) + j
bk(t, j) = (int(t) - 1) * J + j
cut(v) = ycap > 0 && v > ycap ? ycap : v
if (ycap > 0) { set yrange [0:ycap] }
set datafile nocolumnheaders  # the '+' pseudo-file has no header row
plot for [j = 1:J] [t = 1:G:1] '+' using (bx($1, j)):(serpat(word(series, j)) == 0 ? cut(M[bk($1, j)]) : NaN) \
       with boxes fs solid 0.85 lc rgb sercol(word(series, j)) \
       title (showkey && serpat(word(series, j)) == 0 ? nice(word(series, j)) : ''), \
     for [j = 1:J] [t = 1:G:1] '+' using (bx($1, j)):(ycap > 0 && M[bk($1, j)] > ycap ? ycap : NaN):(sprintf('%.3g ↑', M[bk($1, j)])) \
       with labels center offset 0,0.6 font ',10' tc rgb '#303030' notitle, \
     for [j = 1:J] [t = 1:G:1] '+' using (bx($1, j)):(serpat(word(series, j)) > 0 ? cut(M[bk($1, j)]) : NaN) \
       with boxes fs pattern serpat(word(series, j)) lc rgb sercol(word(series, j)) \
       title (showkey && serpat(word(series, j)) > 0 ? nice(word(series, j)) : ''), \
     for [j = 1:J] [t = 1:G:1] '+' using (bx($1, j)):(LO[bk($1, j)]):(0):(HI[bk($1, j)] - LO[bk($1, j)]) \
       with vectors heads size 0.15,90 lc rgb '#202020' lw 1.2 notitle, \
     for [j = 1:J] [t = 1:G:1] '+' using (bx($1, j)):(showcount && N[bk($1, j)] > 0 ? M[bk($1, j)] : NaN):(sprintf('%d', N[bk($1, j)])) \
       with labels offset 0,0.6 font ',10' tc rgb '#303030' notitle
set datafile columnheaders
