# plots/fig04.gp: paper Fig. 4 — verification latency vs verified tokens on a phone NPU
# (oneplus-12, Snapdragon 8 Gen 3) vs a desktop GPU (rtx-3090), Llama-3.1-8B and Qwen3-8B;
# (b) speedup of one n-token pass over n single-token passes. Data: fig04.csv, computed by
# `leversim figures` from the device and model files (runner/curve.c), weights in memory.
load plotdir.'/common.gp'
sel(d, m) = (strcol('device') eq d && strcol('model') eq m)
# colour: device (NPU orange, GPU green), darker for the first model; dash: model
devcol(d, m) = d eq 'rtx-3090' ? (idx(m, models) == 1 ? '#2e7d32' : '#81c784') : \
  (idx(m, models) == 1 ? '#e65100' : '#ffab40')
moddt(m) = idx(m, models)
set multiplot layout 1,2 margins 0.09,0.97,0.12,0.86 spacing 0.09,0 \
  title "Fig. 4 — Verification latency vs tokens verified in one pass (target weights in memory)" font ',16'
set xlabel 'tokens verified in one pass'
set xrange [1:70]
set logscale x 2
set xtics (1, 2, 4, 8, 16, 32, 64)
set logscale y 10
set ylabel 'verification latency (ms, log scale)'
set title '(a) latency of one verification pass'
set key top left font ',13' samplen 3 box opaque
plot for [d in devices] for [m in models] csv using (sel(d, m) ? column('tokens') : NaN):(column('latency_ms')) \
  with lines lw 3 lc rgb devcol(d, m) dt moddt(m) title nice(m).' on '.nice(d).(d eq 'rtx-3090' ? ' (GPU)' : ' (NPU)')
unset logscale y
set ylabel 'speedup over single-token passes (n·t(1)/t(n))'
set title '(b) speedup over generating the tokens one by one'
set yrange [0:*]
set key top left font ',13' samplen 3 box opaque
plot for [d in devices] for [m in models] csv using (sel(d, m) ? column('tokens') : NaN):(column('speedup')) \
  with lines lw 3 lc rgb devcol(d, m) dt moddt(m) notitle, \
  x with lines lc rgb '#999999' dt 3 lw 1.5 title 'ideal (flat latency)'
unset multiplot
