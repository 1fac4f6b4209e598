# plots/uncertainty.gp: the uncertainty study's Sobol indices (leversim uncertainty), one bar
# group per paper claim, one bar per open assumption: its total index (the share of the
# claim's variance it takes part in, alone or with others), the first-order index (its share
# alone) as an outlined narrower bar inside it. Set with -e: csv (claim,assumption,first_order,total), out.
set terminal pngcairo size 1400,700 enhanced font 'Sans,12' background rgb 'white'
set output out
set datafile separator comma
set datafile columnheaders
set datafile missing NaN
claims = system("tail -n +2 '".csv."' | cut -d, -f1 | uniq | tr '\\n' ' '")
assum = system("tail -n +2 '".csv."' | cut -d, -f2 | awk '!s[$0]++' | tr '\\n' ' '")
NC = words(claims)
NA = words(assum)
set title "How much each open assumption decides each claim (total Sobol index; first order outlined inside)"
set ylabel 'Sobol index'
set yrange [0:1.05]
set xrange [0.3:NC + 0.7]
set xtics () font ',10'
do for [c = 1:NC] { set xtics add (word(claims, c) c) }
set xtics rotate by -25
set grid ytics lc rgb '#dddddd'
set key outside right top vertical font ',10'
set style fill solid 0.85 border rgb '#555555'
w = 0.8 / NA
pal = '#0072B2 #E69F00 #009E73 #CC79A7 #56B4E9 #D55E00 #F0E442 #7F3C8D #999999 #882255 #44AA99 #117733'
idx(s) = (sum [c = 1:NC] (word(claims, c) eq s ? c : 0))
plot for [a = 1:NA] csv using (idx(strcol(1)) - 0.4 + (a - 0.5) * w):(strcol(2) eq word(assum, a) ? column(4) : NaN):(w) \
       with boxes lc rgb word(pal, (a - 1) % 12 + 1) title word(assum, a), \
     for [a = 1:NA] csv using (idx(strcol(1)) - 0.4 + (a - 0.5) * w):(strcol(2) eq word(assum, a) ? column(3) : NaN):(w * 0.45) \
       with boxes fs empty border lc rgb '#000000' lw 1.5 lc rgb '#000000' notitle
