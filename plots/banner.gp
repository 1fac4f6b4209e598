# plots/banner.gp: the paper's claim and the verdict on this figure's data as lines under the
# title (common.gp: claim, verdict, verdict2, verdict_col). Load after `set multiplot`, with
# banner_y the first line's height (screen); labels 101-103 go with the next plot only: the
# script unsets them after its first panel (`unset label 101; unset label 102; unset label 103`).
set label 101 claim at screen 0.5, screen banner_y center font ',13' noenhanced front
set label 102 verdict at screen 0.5, screen banner_y - 0.033 center font ',13' tc rgb verdict_col noenhanced front
set label 103 verdict2 at screen 0.5, screen banner_y - 0.063 center font ',13' tc rgb verdict_col noenhanced front
