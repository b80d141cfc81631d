# scripts/plot-latency.gp - HdrHistogram-style latency percentile plot of a drabench run.
# Variables (gnuplot -e): datadir = directory of <shape>.dat files with rows "<latency us> <1/(1-p)>"
# (from the .hgrm files `drabench run --hgrm` writes), output = PNG path, scenario = title text.
# The x axis is 1/(1-percentile) on a log scale, so the tail (99%, 99.9%, ...) gets room, as in
# HdrHistogram's plotFiles.html and gnuplotExample/make_percentile_plot.
if (!exists("datadir")) datadir = "."
if (!exists("output")) output = "latency.png"
if (!exists("scenario")) scenario = "drabench run"

set terminal pngcairo size 1100,650 noenhanced font ",10"
set output output
set title "pod latency by percentile: ".scenario noenhanced
set xlabel "percentile" noenhanced
set ylabel "latency (us)" noenhanced
set logscale x
set logscale y
set xrange [1:100000]
set xtics ("0%%" 1, "50%%" 2, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000)
set grid xtics ytics mytics
set key top left noenhanced
files = system("ls ".datadir."/*.dat 2>/dev/null")
label(f) = system("basename ".f." .dat")
plot for [f in files] f using 2:1 with lines linewidth (label(f) eq "all" ? 3 : 1.5) title label(f) noenhanced
