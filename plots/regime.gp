# plots/regime.gp: the regime map (beyond the paper). Columns: one combination of the
# assumptions the paper leaves open (NPU runtime regime, overlap of flash reads with compute,
# where the output projection's weights live, whether a short pass is padded to a tile);
# rows: the paper's claims. A cell is blue where the claim holds under that combination,
# orange where it fails (Okabe-Ito sky blue and orange: colour-blind safe), with the number behind it. Data: regime.csv (view regime).
# What "holds" means (the same thresholds as docs/CALIBRATION.md, section "Regime map"):
#   Lever vs AR-flash >= 2 (paper 2.93x); Lever vs SpecInfer >= 1.2 (paper 1.50x);
#   pruning: Lever / Lever w/o pruning > 1.005; mapping: hybrid above both CPU-only and
#   NPU-only drafting; head: on-demand CPU projection above eager NPU; Table 1: AR-flash
#   I/O share >= 0.78.
load plotdir.'/common.gp'
set terminal push
set datafile separator comma
stats csv using 0 nooutput
N = STATS_records
set xrange [0.5:N + 0.5]
set yrange [0.5:6.5]
unset grid
set border 0
set tics scale 0
set ytics ('Lever vs AR-flash ≥ 2×' 6, 'Lever vs SpecInfer ≥ 1.2×' 5, 'pruning pays (Fig. 12)' 4, \
  'hybrid map wins (Fig. 13)' 3, 'CPU head beats eager NPU (Fig. 14)' 2, 'I/O ≥ 78 %% (Table 1)' 1) font ',12'
abbr(s) = s eq 'q4_0-dynamic' ? 'q4_0' : s eq 'static-graph' ? 'static' : s eq 'serial' ? 'serial' : \
  s eq 'prefetch' ? 'prefetch' : s eq 'dram' ? 'head DRAM' : s eq 'flash' ? 'head flash' : \
  s eq 'true' ? 'pad' : s eq 'false' ? 'no pad' : s
set xtics rotate by 90 right font ',11' offset 0,0.5 noenhanced
set lmargin 34
set bmargin 17
set tmargin 5
set title "Regime map: where the paper's claims hold (blue) or fail (orange)\n".nice(word(devices, 1)).', '.nice(word(models, 1)).', '.nice(word(datasets, 1)).'  (default: q4\_0 / serial / head DRAM / pad)' font ',13'
ok(v, t) = v == v ? (v >= t ? 0x56B4E9 : 0xE69F00) : 0xC8C8C8
mn(a, b) = a < b ? a : b
lbl(v) = v == v ? sprintf('%.3f', v) : 'n/a'
set style fill solid 0.9 border rgb 'white'
plot csv using ($0 + 1):(6):(0.5):(0.5):(ok(column('vs_ar'), 2.0)):xtic(abbr(strcol('npu')).' / '.abbr(strcol('overlap')).' / '.abbr(strcol('head')).' / '.abbr(strcol('pad'))) \
       with boxxyerror fc rgb variable notitle, \
     '' using ($0 + 1):(6):(lbl(column('vs_ar'))) with labels font ',10' notitle, \
     '' using ($0 + 1):(5):(0.5):(0.5):(ok(column('vs_sd'), 1.2)) with boxxyerror fc rgb variable notitle, \
     '' using ($0 + 1):(5):(lbl(column('vs_sd'))) with labels font ',10' notitle, \
     '' using ($0 + 1):(4):(0.5):(0.5):(ok(column('prune'), 1.005)) with boxxyerror fc rgb variable notitle, \
     '' using ($0 + 1):(4):(lbl(column('prune'))) with labels font ',10' notitle, \
     '' using ($0 + 1):(3):(0.5):(0.5):(ok(mn(column('map_cpu'), column('map_npu')), 1.0 + 1e-9)) with boxxyerror fc rgb variable notitle, \
     '' using ($0 + 1):(3):(lbl(mn(column('map_cpu'), column('map_npu')))) with labels font ',10' notitle, \
     '' using ($0 + 1):(2):(0.5):(0.5):(ok(column('head_ratio'), 1.0 + 1e-9)) with boxxyerror fc rgb variable notitle, \
     '' using ($0 + 1):(2):(lbl(column('head_ratio'))) with labels font ',10' notitle, \
     '' using ($0 + 1):(1):(0.5):(0.5):(ok(column('io_share'), 0.78)) with boxxyerror fc rgb variable notitle, \
     '' using ($0 + 1):(1):(lbl(column('io_share'))) with labels font ',10' notitle
