#!/usr/bin/env bash
# Instruction profile of the provider's per-message path in the test VM:
# a QEMU TCG plugin (scripts/iprof/iprof.c) counts the guest kernel's
# executed blocks and instructions between two marks of the workload
# (tests/iprof_mark.h); scripts/iprof/report.py prints them per message.
# Unlike times on this emulated, shared machine, these counts repeat from
# run to run (TCP's own ACK timing aside): the measure for comparing two
# versions of the code.
#   scripts/iprof.sh stream [N [NODE]]  KUnit tcp_msg_inject_stream: one
#                                       thread, N 64-byte messages (20000)
#                                       between endpoints on NODE
#                                       (127.0.0.1; ::1 for IPv6), then
#                                       tcp_raw_inject_stream, the same over
#                                       plain kernel TCP sockets: both
#                                       reports and their ratio
#   scripts/iprof.sh pingpong KEY=V...  kfi_pingpong client and server, one
#                                       size, e.g. transport=kfi wait=spin
#                                       sizes=64 iters=20000 (per transfer);
#                                       prov=verbs (kfi_verbs) or
#                                       transport=ibv (ibv_pingpong's raw
#                                       queue pair) addr=10.95.0.1: on an
#                                       rxe device in the guest;
#                                       mode=stream window=N [more=1]:
#                                       counts per message of the stream
# KFI_IPROF_TOP (40) functions are listed; KFI_IPROF_FOCUS=SYMBOL lists
# the blocks of a function. Output in .iprof-logs/ (KFI_LOGDIR overrides):
# report.txt, the snapshots (snap.N), kallsyms, the guest's log.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=env.sh
. "$here/env.sh"
cd "$top" || exit 1
what=${1:-stream}
shift || true
case $what in
stream)
	n=${1:-20000}
	per=$n
	args=("$n" ${2:+"$2"})
	;;
pingpong)
	args=("$@")
	iters=$(printf '%s\n' "$@" | sed -n 's/^iters=//p')
	sizes=$(printf '%s\n' "$@" | sed -n 's/^sizes=//p')
	case $sizes in
	*,*|'') echo "iprof: pingpong needs one size (sizes=N)" >&2; exit 2 ;;
	esac
	[ -n "$iters" ] || { echo "iprof: pingpong needs iters=N" >&2; exit 2; }
	per=$((2 * iters))
	# mode=stream: one transfer per message
	case " $* " in
	*" mode=stream "*) per=$iters ;;
	esac
	;;
*)
	sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac

"$here/setup.sh" || exit 1
kdir=$("$here/kernel.sh" base) || exit 1
logdir=${KFI_LOGDIR:-$top/.iprof-logs}
rm -rf "$logdir"
mkdir -p "$logdir/modules"

echo "== build modules and the plugin"
if ! make -s -C "$top" KDIR="$kdir" RUSTC="$RUSTC" BINDGEN="$BINDGEN" KFI_TESTS=1 modules \
		>"$logdir/build.log" 2>&1; then
	tail -30 "$logdir/build.log"
	exit 1
fi
find rust kfi_tcp kfi_verbs tests -name '*.ko' -exec cp {} "$logdir/modules/" \;
plugin=$logdir/libiprof.so
gcc -O2 -Wall -shared -fPIC -fvisibility=hidden -o "$plugin" "$here/iprof/iprof.c" -lpthread || exit 1

echo "== guest: $what ${args[*]}"
KFI_QEMU_OPTS="-plugin file=$plugin,out=$logdir/snap" timeout 900 "$here/vm.sh" "$kdir" \
	--rwdir "$logdir" "$here/iprof/guest.sh $logdir/modules $logdir $what ${args[*]}" \
	>"$logdir/vm.log" 2>&1
grep -v "^$" "$logdir/guest.log" | grep -v "iprof: guest done"
if [ ! -s "$logdir/snap.1" ] || [ ! -s "$logdir/kallsyms" ]; then
	tail -20 "$logdir/vm.log"
	echo "iprof: no profile (see $logdir)"
	exit 1
fi
focus=()
[ -n "${KFI_IPROF_FOCUS:-}" ] && focus=(--focus "$KFI_IPROF_FOCUS")
python3 "$here/iprof/report.py" --syms "$logdir/kallsyms" --from "$logdir/snap.0" \
	--to "$logdir/snap.1" --per "$per" --top "${KFI_IPROF_TOP:-40}" "${focus[@]}" \
	--ko "$logdir/modules/kfi_tcp.ko" --ko "$logdir/modules/kfi_verbs.ko" | tee "$logdir/report.txt"
# stream: the same exchange over plain kernel TCP sockets followed
# (KUnit tcp_raw_inject_stream, marks 2 and 3), side by side in one run;
# then the window streams (64 messages in flight: kfi_tcp, kfi_tcp with
# KFI_MORE, raw kernel TCP with one sendmsg per message; marks 4 to 9)
if [ "$what" = stream ] && [ -s "$logdir/snap.3" ]; then
	# part NAME FROM TO: a report of snapshots FROM..TO; prints
	# "instructions own-instructions"
	part() {
		python3 "$here/iprof/report.py" --syms "$logdir/kallsyms" --from "$logdir/snap.$2" \
			--to "$logdir/snap.$3" --per "$per" --top "${KFI_IPROF_TOP:-40}" \
			--ko "$logdir/modules/kfi_tcp.ko" >"$logdir/report-$1.txt"
		echo "$(sed -n 's/^per unit of work.*instructions \([0-9]*\);.*/\1/p' "$logdir/report-$1.txt")" \
			"$(awk '$1 == "kfi_tcp" { print $3 }' "$logdir/report-$1.txt")"
	}
	ratio() {
		awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "?" }'
	}
	read -r kfi own <<<"$(part kfi 0 1)"
	read -r raw _ <<<"$(part raw 2 3)"
	echo
	echo "== side by side, per 64-byte message (whole guest kernel; reports in $logdir/report-*.txt)"
	echo "one at a time: kfi_tcp $kfi instructions (kfi_tcp.ko's own: ${own:-?}); raw kernel TCP: $raw"
	echo "ratio kfi_tcp / raw: $(ratio "$kfi" "$raw")"
	if [ -s "$logdir/snap.9" ]; then
		read -r win wown <<<"$(part window 4 5)"
		read -r more mown <<<"$(part more 6 7)"
		read -r wraw _ <<<"$(part window-raw 8 9)"
		echo "window of 64: kfi_tcp $win (own ${wown:-?}); with KFI_MORE $more (own ${mown:-?}); raw kernel TCP $wraw"
		echo "ratio window kfi_tcp / raw: $(ratio "$win" "$wraw"); with KFI_MORE / raw: $(ratio "$more" "$wraw")"
	fi
fi
