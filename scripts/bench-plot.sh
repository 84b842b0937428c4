#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's plots: latency and bandwidth against message size, one line
# per contender, from a bench guest log (the BENCH lines of
# tests/pingpong/bench.sh; each point the median of the runs, as in the
# tables). One pair of PNGs per link:
#   OUTDIR/bench-tcp-latency.png, bench-tcp-bandwidth.png     loopback TCP
#   OUTDIR/bench-rxe-*.png, bench-siw-*.png                    RDMA devices
# and the points they show, OUTDIR/bench-plot.dat ("link contender size
# usec MBps"). Needs gnuplot (scripts/setup.sh installs gnuplot-nox).
#   bench-plot.sh GUEST_LOG OUTDIR
set -euo pipefail
log=${1:?guest log}
out=${2:?output directory}
mkdir -p "$out"
dat=$out/bench-plot.dat

# Which link a contender ran on (tests/pingpong/bench.sh's impl keys; an
# "s" appended: the same on siw), and its name in the legend.
awk '
function median(list,    v, n, i, j, t) {
	n = split(list, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function link_of(impl) {
	if (impl ~ /^(kfiv|kfivr|ibv|fippv|fippvr|kfit)$/) return "rxe"
	if (impl ~ /^(kfivs|kfivrs|ibvs|fippvs|fippvrs|kfits)$/) return "siw"
	return "tcp"
}
function label(impl, wait,    n) {
	n = impl
	sub(/s$/, "", n) # siw: the same names
	if (link_of(impl) == "tcp") n = impl
	if (n == "kfi") n = "kfi_tcp MSG"
	else if (n == "raw") n = "raw kernel TCP"
	else if (n == "fipp") n = "fi_pingpong tcp"
	else if (n == "kfi6") n = "kfi_tcp MSG IPv6"
	else if (n == "raw6") n = "raw kernel TCP IPv6"
	else if (n == "kfir") n = "kfi_tcp RDM"
	else if (n == "fippr") n = "fi_pingpong tcp;ofi_rxm"
	else if (n == "kfiv") n = "kfi_verbs MSG"
	else if (n == "kfivr") n = "kfi_verbs RDM"
	else if (n == "ibv") n = "raw ib_verbs QP"
	else if (n == "fippv") n = "fi_pingpong verbs"
	else if (n == "fippvr") n = "fi_pingpong verbs;ofi_rxm"
	else if (n == "kfit") n = "kfi_tcp MSG, same link"
	return n (wait == "sleep" ? " (blocking)" : "")
}
$1 == "BENCH" && NF == 8 {
	k = $2 SUBSEP $3 SUBSEP $4
	if (!(k in L)) order[++n] = k
	L[k] = L[k] " " $7
	B[k] = B[k] " " $8
}
END {
	for (i = 1; i <= n; i++) {
		split(order[i], f, SUBSEP)
		c = label(f[1], f[2])
		gsub(/ /, "~", c)
		printf "%s %s %s %s %s\n", link_of(f[1]), c, f[3], median(L[order[i]]), median(B[order[i]])
	}
}' "$log" | sort -k1,1 -k2,2 -k3,3n >"$dat"

if [ ! -s "$dat" ]; then
	echo "bench-plot: no BENCH lines in $log" >&2
	exit 1
fi
if ! command -v gnuplot >/dev/null; then
	echo "bench-plot: gnuplot not found (apt-get install gnuplot-nox)" >&2
	exit 1
fi

n=0
for link in tcp rxe siw; do
	contenders=$(awk -v l="$link" '$1 == l { print $2 }' "$dat" | sort -u | tr '\n' ' ')
	[ -n "$contenders" ] || continue
	case $link in
	tcp) where="loopback TCP (127.0.0.1; ::1 for IPv6)" ;;
	rxe) where="rxe (soft RoCE) device" ;;
	siw) where="siw (soft iWARP) device" ;;
	esac
	for what in latency bandwidth; do
		if [ $what = latency ]; then
			col=4 ylabel="half round trip (usec, log)" key="top left"
		else
			col=5 ylabel="bandwidth (MB/s, log)" key="top left"
		fi
		gnuplot <<EOF
set terminal pngcairo size 900,600 font ",10"
set output "$out/bench-$link-$what.png"
set title "kfabric make bench: $what against message size, $where\n(QEMU TCG guest: compare lines side by side, not with real hardware)"
set logscale x 2
set logscale y
set xlabel "message size"
set xtics ("1 B" 1, "8 B" 8, "64 B" 64, "512 B" 512, "4 KiB" 4096, "32 KiB" 32768, "256 KiB" 262144, "1 MiB" 1048576, "8 MiB" 8388608)
set ylabel "$ylabel"
set key $key
set grid
list = "$contenders"
plot for [c in list] "$dat" using (strcol(1) eq "$link" && strcol(2) eq c ? \$3 : NaN):$col \
	with linespoints title system("echo '".c."' | sed 's/~/ /g'") noenhanced
EOF
		n=$((n + 1))
	done
done
echo "bench-plot: $n plots in $out (points: $dat)"
