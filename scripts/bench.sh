#!/usr/bin/env bash
# make bench: half round-trip latency and bandwidth of kernel<->kernel
# messages over kfabric's tcp provider (a), the same exchange over raw
# kernel TCP sockets (b) and userspace fi_pingpong over libfabric's tcp
# provider (c), all in one boot of the test VM (tests/pingpong/bench.sh).
# Prints one table (Markdown) with the ratios next to their targets:
#   latency a/b <= 1.10, latency a/c <= 0.90, bandwidth a/b >= 0.95
# The targets are reported, not enforced: the exit status is non-zero only
# when the build, the guest or one of the runs failed.
#   scripts/bench.sh [base|debug]
#   scripts/bench.sh --report GUEST_LOG   the table (and plots) of an earlier run's log
# Then the plots (scripts/bench-plot.sh): latency and bandwidth against
# size, one line per contender, a pair of PNGs per link, next to the table.
# KFI_BENCH_REPEATS (default 5) runs of each configuration; the table
# shows medians. KFI_BENCH_PLAN=SIZE:ITERS,... replaces the guest's sizes
# and iterations (64:10000,4096:10000,65536:3000,1048576:500);
# KFI_BENCH_VPLAN those of the verbs runs on rxe (64:2000,4096:2000,
# 65536:500,1048576:50); KFI_BENCH_VERBS=0 skips them, KFI_BENCH_PLAN=none
# the kfi_tcp part. Logs and the table: .bench-logs/ (KFI_LOGDIR overrides).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
variant=${1:-base}
repeats=${KFI_BENCH_REPEATS:-5}
# shellcheck source=env.sh
. "$here/env.sh"
cd "$top" || exit 1

# report GUEST_LOG: prints the tables from a guest log, the failed runs
# and the problems found in the log; returns non-zero if there are any.
report() {
	local log=$1 nfail bad p problems=()
	awk '
	function median(list,    v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++)	# insertion sort, numerically
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		if (n == 0)
			return ""
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function range(list,    v, n, i, lo, hi, m) {
		n = split(list, v, " ")
		if (n < 2)
			return "-"
		lo = hi = v[1] + 0
		for (i = 2; i <= n; i++) {
			if (v[i] + 0 < lo) lo = v[i] + 0
			if (v[i] + 0 > hi) hi = v[i] + 0
		}
		m = median(list)
		return m > 0 ? sprintf("%.0f%%", 100 * (hi - lo) / m) : "-"
	}
	function num(x) { return x == "" ? "FAIL" : sprintf("%.2f", x) }
	# The RDM latency table: impl keys r (RDM), a (MSG), e (fi_pingpong
	# rdm) at the n sizes of sz.
	function rdm_table(r, a, e, sz, n,    i, s, kr, ka, ke) {
		print "| size | r lat | a lat | e lat | lat r/a (<= 1.10) | lat r/e (<= 0.90) | r MB/s | a MB/s | e MB/s |"
		print "|---:|---:|---:|---:|---|---|---:|---:|---:|"
		for (i = 1; i <= n; i++) {
			s = sz[i]
			kr = r " spin " s; ka = a " spin " s; ke = e " spin " s
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", human(s),
				num(lat(kr)), num(lat(ka)), num(lat(ke)),
				ratio(lat(kr), lat(ka), "<=", 1.10), ratio(lat(kr), lat(ke), "<=", 0.90),
				num(bw(kr)), num(bw(ka)), num(bw(ke))
		}
	}
	# The N-senders table of the rates keyed rdm<sfx> and msg<sfx>.
	function rate_table(sfx,    e, ep) {
		print "| ep | size | 1 peer | 4 peers | 16 peers | 16/1 (>= 0.90) |"
		print "|---|---:|---:|---:|---:|---|"
		for (e = 0; e < 2; e++) {
			ep = (e ? "msg" : "rdm") sfx
			printf "| %s | 64 B | %s msg/s | %s | %s | %s |\n", e ? "MSG" : "RDM",
				median(R[ep " 1 64"]), median(R[ep " 4 64"]), median(R[ep " 16 64"]),
				ratio(median(R[ep " 16 64"]), median(R[ep " 1 64"]), ">=", 0.90)
			printf "| %s | 64 KiB | %s MB/s | %s | %s | %s |\n", e ? "MSG" : "RDM",
				median(RB[ep " 1 65536"]), median(RB[ep " 4 65536"]), median(RB[ep " 16 65536"]),
				quot(median(RB[ep " 16 65536"]), median(RB[ep " 1 65536"]))
		}
	}
	# ratio a/b, with "ok" or "miss" against the target: op is "<=" or ">="
	function ratio(a, b, op, target,    r) {
		if (a == "" || b == "" || b + 0 == 0)
			return "-"
		r = a / b
		targets++
		if ((op == "<=" && r <= target) || (op == ">=" && r >= target)) {
			met++
			return sprintf("%.2f ok", r)
		}
		return sprintf("%.2f miss", r)
	}
	function quot(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
	function human(s) {
		if (s >= 1048576 && s % 1048576 == 0) return s / 1048576 " MiB"
		if (s >= 1024 && s % 1024 == 0) return s / 1024 " KiB"
		return s " B"
	}
	function lat(k) { return median(L[k]) }
	function bw(k) { return median(B[k]) }
	# notes of the host (written before the boot), then of the guest
	$1 == "BENCH-INFO" && $2 == "date" { date = substr($0, 17) }
	$1 == "BENCH-INFO" && $2 == "rev" { rev = $3 }
	$1 == "BENCH-INFO" && $2 == "variant" { variant = $3 }
	$1 == "BENCH-INFO" && $2 == "host" { host = $3 }
	$1 == "BENCH-INFO" && $2 == "nproc" { nproc = $3 }
	$1 == "BENCH-INFO" && $2 == "cpu" { cpu = substr($0, 16) }
	$1 == "BENCH-INFO" && $2 == "vm" { vm = $3 }
	$1 == "BENCH-INFO" && $2 == "kernel" { kernel = $3 }
	$1 == "BENCH-INFO" && $2 == "cpus" { vcpus = $3 }
	$1 == "BENCH-INFO" && $2 == "repeats" { repeats = $3 }
	$1 == "BENCH-INFO" && $2 == "seconds" { seconds = $3 }
	$1 == "BENCH-INFO" && $2 == "plan" {
		for (i = 3; i <= NF; i++) {
			split($i, p, ":")
			sizes[++nsizes] = p[1]
			iters[p[1]] = p[2]
		}
	}
	$1 == "BENCH-INFO" && $2 == "vplan" {
		for (i = 3; i <= NF; i++) {
			split($i, p, ":")
			vsizes[++nvsizes] = p[1]
			viters[p[1]] = p[2]
		}
	}
	$1 == "BENCH" && NF == 8 {
		k = $2 " " $3 " " $4
		L[k] = L[k] " " $7
		B[k] = B[k] " " $8
	}
	$1 == "BENCH-RATE" {
		k = $2 " " $3 " " $4
		R[k] = R[k] " " $7
		RB[k] = RB[k] " " $8
		rmsgs[$2 " " $4] = $5
	}
	$1 == "BENCH-FAIL" { fails[++nfails] = $0 }
	$1 == "BENCH-CNTR" { cn[++ncntr] = sprintf("| %s | %s | %s | %s |", $2, $3, $4, $5) }
	$1 == "BENCH-ADD" { A[$2 " " $3] = A[$2 " " $3] " " $5 }
	$1 == "BENCH-HANDOFF" { handoff = $2 }
	END {
		printf "kfabric benchmark, %s (kfabric %s)\n", date, rev
		printf "machine: %s CPUs, %s (host Linux %s); guest: QEMU %s, %s vCPUs, Linux %s (%s test kernel)\n",
			nproc, cpu, host, vm, vcpus, kernel, variant
		printf "iterations:"
		for (i = 1; i <= nsizes; i++)
			printf "%s %s x%s", (i > 1 ? "," : ""), human(sizes[i]), iters[sizes[i]]
		printf "; each cell: median of %s runs, client side\n", repeats
		print "latency: half round trip (usec/xfer); bandwidth: MB/s, 10^6 bytes/s of both directions"
		print "a = kfi_tcp kernel<->kernel, b = raw kernel TCP, c = fi_pingpong -p tcp -e msg; all busy-polling"
		print ""
		print "| size | kfi lat | raw lat | fi_pp lat | lat a/b (<= 1.10) | lat a/c (<= 0.90) | kfi MB/s | raw MB/s | fi_pp MB/s | bw a/b (>= 0.95) |"
		print "|---:|---:|---:|---:|---|---|---:|---:|---:|---|"
		for (i = 1; i <= nsizes; i++) {
			s = sizes[i]
			a = "kfi spin " s; b = "raw spin " s; c = "fipp spin " s
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", human(s),
				num(lat(a)), num(lat(b)), num(lat(c)),
				ratio(lat(a), lat(b), "<=", 1.10), ratio(lat(a), lat(c), "<=", 0.90),
				num(bw(a)), num(bw(b)), num(bw(c)), ratio(bw(a), bw(b), ">=", 0.95)
		}
		print ""
		print "wait=sleep (kfi_cq_sread / blocking recvmsg), same targets:"
		print ""
		print "| size | kfi lat | raw lat | lat a/b (<= 1.10) | kfi MB/s | raw MB/s | bw a/b (>= 0.95) |"
		print "|---:|---:|---:|---|---:|---:|---|"
		for (i = 1; i <= nsizes; i++) {
			s = sizes[i]
			a = "kfi sleep " s; b = "raw sleep " s
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", human(s),
				num(lat(a)), num(lat(b)), ratio(lat(a), lat(b), "<=", 1.10),
				num(bw(a)), num(bw(b)), ratio(bw(a), bw(b), ">=", 0.95)
		}
		print ""
		print "IPv6 (::1) next to IPv4 (127.0.0.1), busy-polling, same runs:"
		print ""
		print "| size | kfi v4 lat | kfi v6 lat | v6/v4 | raw v4 lat | raw v6 lat | v6/v4 | kfi v4 MB/s | kfi v6 MB/s | v6/v4 | raw v6 MB/s |"
		print "|---:|---:|---:|---|---:|---:|---|---:|---:|---|---:|"
		for (i = 1; i <= nsizes; i++) {
			s = sizes[i]
			a = "kfi spin " s; a6 = "kfi6 spin " s; b = "raw spin " s; b6 = "raw6 spin " s
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", human(s),
				num(lat(a)), num(lat(a6)), quot(lat(a6), lat(a)),
				num(lat(b)), num(lat(b6)), quot(lat(b6), lat(b)),
				num(bw(a)), num(bw(a6)), quot(bw(a6), bw(a)), num(bw(b6))
		}
		print ""
		print "RDM endpoints (tcp;ofi_rxm on the wire), busy-polling, same runs: r = kfi_tcp RDM kernel<->kernel,"
		print "a = kfi_tcp MSG (above), e = fi_pingpong -p \"tcp;ofi_rxm\" -e rdm:"
		print ""
		rdm_table("kfir", "kfi", "fippr", sizes, nsizes)
		if (("rdm 64") in rmsgs) {
			print ""
			print "N senders (each an endpoint driven by a kernel thread, at most 16 sends outstanding) to one"
			print "endpoint that reposts every receive (kfi_rdm_bench.ko), kfi_tcp; messages per second and MB/s,"
			printf "medians; 64 B x %s and 64 KiB x %s messages in all per run:\n", rmsgs["rdm 64"], rmsgs["rdm 65536"]
			print ""
			rate_table("")
		}
		for (dv = 0; nvsizes && dv < 2; dv++) {
			sfx = dv ? "s" : ""
			print ""
			if (dv)
				print "verbs, on the siw device (veth 10.95.0.2, one device looped to itself), the same contenders:"
			else
				print "verbs, on the rxe device (veth 10.95.0.1, one device looped to itself): a = kfi_verbs kernel<->kernel,"
			if (!dv) {
				print "b = raw ib_verbs RC pingpong (ibv_pingpong.ko), c = fi_pingpong -p verbs -e msg, d = kfi_tcp over the"
				print "same link; all busy-polling; iterations:"
			} else
				printf "iterations:"
			printf "   "
			for (i = 1; i <= nvsizes; i++)
				printf "%s %s x%s", (i > 1 ? "," : ""), human(vsizes[i]), viters[vsizes[i]]
			print ""
			print ""
			print "| size | a lat | b lat | c lat | d lat | lat a/b (<= 1.05) | lat a/c (<= 0.90) | a MB/s | b MB/s | c MB/s | d MB/s | bw a/b (>= 0.95) |"
			print "|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---|"
			for (i = 1; i <= nvsizes; i++) {
				s = vsizes[i]
				a = "kfiv" sfx " spin " s; b = "ibv" sfx " spin " s; c = "fippv" sfx " spin " s; d = "kfit" sfx " spin " s
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", human(s),
					num(lat(a)), num(lat(b)), num(lat(c)), num(lat(d)),
					ratio(lat(a), lat(b), "<=", 1.05), ratio(lat(a), lat(c), "<=", 0.90),
					num(bw(a)), num(bw(b)), num(bw(c)), num(bw(d)), ratio(bw(a), bw(b), ">=", 0.95)
			}
		}
		for (dv = 0; nvsizes && dv < 2; dv++) {
			sfx = dv ? "s" : ""
			if (!(("kfivr" sfx " spin " vsizes[1]) in L))
				continue
			print ""
			printf "verbs RDM endpoints (verbs;ofi_rxm on the wire) on the %s device, busy-polling, same runs:\n", dv ? "siw" : "rxe"
			print "r = kfi_verbs RDM kernel<->kernel, a = kfi_verbs MSG (above), e = fi_pingpong -p \"verbs;ofi_rxm\" -e rdm:"
			print ""
			rdm_table("kfivr" sfx, "kfiv" sfx, "fippvr" sfx, vsizes, nvsizes)
			if (!(("rdmv" sfx " 64") in rmsgs))
				continue
			print ""
			printf "N senders to one endpoint over kfi_verbs on the %s device (kfi_rdm_bench.ko); 64 B x %s and\n", dv ? "siw" : "rxe", rmsgs["rdmv" sfx " 64"]
			printf "64 KiB x %s messages in all per run:\n", rmsgs["rdmv" sfx " 65536"]
			print ""
			rate_table("v" sfx)
		}
		print ""
		printf "run-to-run spread of the latency ((max - min) / median over %s runs):\n", repeats
		print ""
		print "| size | kfi spin | raw spin | fi_pp | kfi sleep | raw sleep | kfi6 spin | raw6 spin |"
		print "|---:|---:|---:|---:|---:|---:|---:|---:|"
		for (i = 1; i <= nsizes; i++) {
			s = sizes[i]
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", human(s), range(L["kfi spin " s]),
				range(L["raw spin " s]), range(L["fipp spin " s]),
				range(L["kfi sleep " s]), range(L["raw sleep " s]),
				range(L["kfi6 spin " s]), range(L["raw6 spin " s])
		}
		print ""
		if (L["kfis spin 64"] != "" || L["raws spin 64"] != "") {
			a = median(L["kfis spin 64"]); m = median(L["kfim spin 64"]); b = median(L["raws spin 64"])
			print "streaming, 64 B, 64 sends outstanding (kfi_pingpong mode=stream, fabtests fi_msg_bw loop; one"
			print "transfer per message; more: KFI_MORE on all but the last send of each window, so kfi_tcp"
			print "coalesces them; raw: one sendmsg per message), usec per message and messages/s:"
			print ""
			print "| kfi usec/msg | kfi more usec/msg | raw usec/msg | kfi msg/s | kfi more msg/s | raw msg/s | rate kfi/raw | rate more/raw (>= 1.00) | spreads kfi, more, raw |"
			print "|---:|---:|---:|---:|---:|---:|---|---|---|"
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, %s |\n", num(a), num(m), num(b),
				(a > 0 ? sprintf("%.0f", 1e6 / a) : "FAIL"), (m > 0 ? sprintf("%.0f", 1e6 / m) : "FAIL"),
				(b > 0 ? sprintf("%.0f", 1e6 / b) : "FAIL"),
				((a > 0 && b > 0) ? sprintf("%.2f", b / a) : "FAIL"),
				((m > 0 && b > 0) ? sprintf("%.2f %s", b / m, (b / m >= 1.00 ? "met" : "**not met**")) : "FAIL"),
				range(L["kfis spin 64"]), range(L["kfim spin 64"]), range(L["raws spin 64"])
			print ""
		}
		if (L["kfig spin 64"] != "") {
			print "triggered sends (kfi_pingpong trigger=1: each send of the client posted with KFI_TRIGGER and made"
			print "due by one kfi_cntr_add) next to plain sends, kfi_tcp, half round trip (usec/xfer); add: its mean (ns):"
			print ""
			print "| size | plain | triggered | triggered - plain | add (ns) |"
			print "|---:|---:|---:|---:|---:|"
			for (i = 1; i <= 2; i++) {
				s = i == 1 ? 64 : 4096
				a = median(L["kfi spin " s]); b = median(L["kfig spin " s])
				printf "| %s | %s | %s | %s | %s |\n", human(s), num(a), num(b),
					((a > 0 && b > 0) ? sprintf("%.2f", b - a) : "-"), median(A["kfig " s])
			}
			print ""
		}
		if (ncntr) {
			print "counter add with triggered operations pending (kfi_cntr_bench; add: mean of 100000 adds, none due;"
			print "fire add: the one add that makes all pending due; fire all: until they have all run):"
			print ""
			print "| pending | add (ns) | fire add (ns) | fire all (us) |"
			print "|---:|---:|---:|---:|"
			for (i = 1; i <= ncntr; i++)
				print cn[i]
			print ""
			if (handoff != "")
				printf "the floor of an add that hands work to another context: queue_work() of an empty item on an idle\nWQ_HIGHPRI workqueue, median: %s ns\n\n", handoff
		}
		printf "targets met: %d of %d; guest run: %s s\n", met, targets, seconds == "" ? "?" : seconds
		for (i = 1; i <= nfails; i++)
			print "failed: " substr(fails[i], 12)
}' "$log"
	grep -aqx 'BENCH-DONE' "$log" || problems+=("the guest did not finish")
	nfail=$(grep -ac '^BENCH-FAIL ' "$log")
	if [ "$nfail" -gt 0 ]; then
		problems+=("$nfail failed run(s)")
	fi
	bad='WARNING:|BUG:|Oops|KASAN|UBSAN|kernel BUG|general protection fault|possible circular locking|inconsistent lock state|possible recursive locking|scheduling while atomic|sleeping function called from invalid context|unreferenced object|Kernel panic|Call Trace:'
	if grep -aE "$bad" "$log" >/dev/null; then
		problems+=("kernel error report in the guest's log")
		grep -aE -B2 -A12 "$bad" "$log" | head -40
	fi
	for p in "${problems[@]}"; do
		echo "problem: $p"
	done
	[ ${#problems[@]} -eq 0 ]
}

if [ "$variant" = --report ]; then
	report "${2:?guest log}"
	rc=$?
	"$here/bench-plot.sh" "$2" "$(dirname "$2")" || rc=1
	exit $rc
fi

tplan=${KFI_BENCH_PLAN:-}
case ${tplan#none}${KFI_BENCH_VPLAN:-} in
*[!0-9:,]*) echo "bench: KFI_BENCH_PLAN, KFI_BENCH_VPLAN: expected SIZE:ITERS,... (KFI_BENCH_PLAN=none: verbs only)" >&2; exit 2 ;;
esac
"$here/setup.sh" || exit 1
kdir=$("$here/kernel.sh" "$variant") || exit 1

logdir=${KFI_LOGDIR:-$top/.bench-logs}
mkdir -p "$logdir"

# ---- modules (as scripts/check.sh: kfi_pingpong.ko is a test module)
echo "== build modules against $kdir"
if ! make -s -C "$top" KDIR="$kdir" RUSTC="$RUSTC" BINDGEN="$BINDGEN" KFI_TESTS=1 modules \
		>"$logdir/build.log" 2>&1; then
	tail -30 "$logdir/build.log"
	echo "bench: module build failed"
	exit 1
fi
# The guest loads its modules from a copy, so that a build in the tree
# while the guest runs cannot hand it modules of another kernel.
kodir=$logdir/modules-$variant
rm -rf "$kodir"
mkdir -p "$kodir"
find rust kfi_tcp kfi_verbs tests -name '*.ko' -exec cp {} "$kodir/" \;

# ---- guest
echo "== guest ($variant kernel, QEMU): $repeats runs of each configuration"
# The guest appends to the log as it goes; it starts with what the host
# knows (for the report, also when redone later with --report).
guest_log=$logdir/guest-$variant.log
vm=TCG
[ "${KFABRIC_KVM:-0}" = 1 ] && vm=KVM
{
	echo "BENCH-INFO date $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "BENCH-INFO rev $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "BENCH-INFO variant $variant"
	echo "BENCH-INFO host $(uname -r)"
	echo "BENCH-INFO nproc $(nproc)"
	echo "BENCH-INFO cpu $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "BENCH-INFO vm $vm"
} >"$guest_log"
vplan=${KFI_BENCH_VPLAN:--}
[ "${KFI_BENCH_VERBS:-1}" = 0 ] && vplan=none
timeout 1800 "$here/vm.sh" "$kdir" --rwdir "$logdir" \
	"$top/tests/pingpong/bench.sh $kodir $guest_log $repeats ${KFI_BENCH_PLAN:--} $vplan" >"$logdir/vm-$variant.log" 2>&1
vm_rc=$?

# ---- the report
rc=0
report "$guest_log" | tee "$logdir/table.md"
[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
# the plots next to the table (scripts/bench-plot.sh)
"$here/bench-plot.sh" "$guest_log" "$logdir" || { echo "problem: no plots"; rc=1; }
if [ $vm_rc -ne 0 ]; then
	tail -5 "$logdir/vm-$variant.log"
	echo "problem: guest run exited $vm_rc"
	rc=1
fi
echo "logs: $logdir"
exit $rc
