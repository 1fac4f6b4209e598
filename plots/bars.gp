# plots/bars.gp: one grouped bar chart of means (called by fig11-14 and energy, per panel).
# Reads: csv; col (column to average) and sc (factor); gkey(0) (group of the current row, a
# function the caller defines) and groups (word list), allgroup (1: add an 'all' group);
# scol (series column) and series (word list); sercol(s) (colour); showkey (1: titles).
# Each bar is the arithmetic mean of sc * column(col) over the rows of its group and series
# (across whatever else varies, e.g. devices and targets); absent combinations draw nothing.
NG = words(groups)
G = NG + (allgroup ? 1 : 0)
J = words(series)
array M[G * J]
do for [g = 1:G] { do for [j = 1:J] {
  undefine STATS_*
  stats csv using ((g > NG || gkey(0) eq word(groups, g)) && strcol(scol) eq word(series, j) ? sc * column(col) : NaN) nooutput
  M[(g - 1) * J + j] = exists('STATS_mean') ? STATS_mean : NaN
} }
set boxwidth 0.9
set xrange [0:G * (J + 1)]
set xtics ()
do for [g = 1:G] { set xtics add ((g > NG ? 'all' : glabel(word(groups, g))) (g - 1) * (J + 1) + (J + 1) / 2.0) }
set datafile nocolumnheaders  # the '+' pseudo-file has no header row
plot for [j = 1:J] [t = 1:G:1] '+' using ((int($1) - 1) * (J + 1) + j):(M[(int($1) - 1) * J + j]) \
  with boxes lc rgb sercol(word(series, j)) title (showkey ? nice(word(series, j)) : '')
set datafile columnheaders
