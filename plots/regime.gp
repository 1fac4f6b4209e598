# plots/regime.gp: the regime map (beyond the paper). Rows: the paper's claims that the
# replay's figures test (Fig. 10, 12, 13, 14, Table 1); columns: the assumptions the paper
# leaves open — the defaults (the first column, framed), then one assumption changed at a time
# (NPU runtime regime, overlap of flash reads with compute, where the output projection's
# weights live, padding of short passes to an NPU tile). A cell is the claim's own test
# (runner/report/figures.c: one definition, the same as the figure's and claims.md's) on that
# column's runs: blue where it holds, orange where it fails, grey where it cannot be checked,
# with the claim's number (its mean over the configurations) and that mean's 95 % interval over
# the configurations. The runs are the regime study's (`leversim reproduce --regime`,
# runner/experiments/regime.yaml, 5 prompts per run); every column, the defaults included, holds
# every system Fig. 10's "fastest" compares. A database that also holds the paper's figures'
# runs takes the first column from the figures' own verdicts instead.
# Data: map (regime_map.csv, written by `leversim figures` from view regime); the per-run
# rows are in regime.csv.
load plotdir.'/common.gp'
set datafile separator comma
stats map using (column('row')) nooutput
NR = int(STATS_max) + 1
stats map using (column('col')) nooutput
NC = int(STATS_max) + 1
unset grid
set border 0
set tics scale 0
set xrange [-0.5:NC - 0.5]
set yrange [NR - 0.5:-0.5]
set x2range [-0.5:NC - 0.5]
set lmargin at screen 0.245
set rmargin at screen 0.995
set tmargin at screen 0.84
set bmargin at screen 0.035
set label 2 "Regime map: does each claim of the paper hold when an open assumption changes?" \
  at screen 0.5, screen 0.965 center font ',16'
set label 1 'blue: holds, orange: does not, grey: not checked — the test of each claim is its figure''s (claims.md); number: mean over the configurations [95 % interval]' \
  at screen 0.5, screen 0.925 center font ',11' tc rgb '#404040'
colname(s) = s eq 'default' ? "the defaults\n(5 prompts per run)" : \
  s eq 'npu static-graph' ? "NPU: static graph" : s eq 'overlap prefetch' ? "flash reads overlap\ncompute (prefetch)" : \
  s eq 'head flash' ? "output head\nin flash" : s eq 'matrix true' ? "NPU matrix path\nfrom 32 tokens" : \
  s eq 'pad true' ? "short passes\npadded to a tile" : s
cellfmt(f, v, lo, hi) = v != v ? 'n/a' : \
  (f eq 'table1' ? sprintf("%.1f %%\n[%.1f, %.1f]", 100 * v, 100 * lo, 100 * hi) : \
   f eq 'fig10' ? sprintf("%.2f×\n[%.2f, %.2f]", v, lo, hi) : sprintf("%.3f×\n[%.3f, %.3f]", v, lo, hi))
fill(h) = h == 1 ? 0x56B4E9 : h == 0 ? 0xE69F00 : 0xC8C8C8
set x2tics () font ',12' noenhanced
set ytics () font ',12' noenhanced
unset xtics
set datafile columnheaders
stats map using (column('is_default') == 1 ? (tmp = strcol('column'), 0) : 0) nooutput
do for [i = 0:NR - 1] {
  stats map using (column('row') == i && column('col') == 0 ? (lab = strcol('fig').': '.strcol('cell'), 0) : 0) nooutput
  figname = lab[1:6] eq 'table1' ? 'Table 1' : 'Fig. '.lab[4:5]
  set ytics add (figname."\n".lab[strstrt(lab, ':') + 2:] i)
}
do for [j = 0:NC - 1] {
  stats map using (column('row') == 0 && column('col') == j ? (cn = strcol('column'), 0) : 0) nooutput
  set x2tics add (colname(cn) j)
}
# the default column framed: the figures' own verdicts
set object 1 rect from -0.5, -0.5 to 0.5, NR - 0.5 fs empty border rgb '#000000' lw 4 front
set style fill solid 1.0 border rgb 'white'
plot map using (column('col')):(column('row')):(0.5):(0.5):(fill(column('holds'))) \
       with boxxyerror fc rgb variable lw 2 notitle, \
     '' using (column('col')):(column('row')):(cellfmt(strcol('fig'), column('value'), column('lo'), column('hi'))) \
       with labels font ',12' notitle
