#!/usr/bin/env bash
# Timeline of a ping-pong's transfers in the test VM: where the time of one
# message goes, kfi_tcp against raw kernel TCP. The modules are built with
# KFI_TRACE=1 (in a copy of the tree, so the normal build is left alone):
# kfi_tcp and kfi_pingpong then record timestamps at the points listed in
# kfi_tcp/kfi_tcp_trace.h, and scripts/timeline/timeline.py prints, for
# every point, its median time after the client's send started, with the
# CPU it ran on. Tracing adds its own cost (a timestamp is some hundred ns
# under TCG), so compare the steps, not the totals, with untraced runs.
#   scripts/timeline.sh [SIZE [ITERS [ROUNDS]]]   (64, 20000, 2)
# Runs raw then kfi in spin mode, ROUNDS times; the report uses the last
# round. Output in .timeline-logs/ (KFI_LOGDIR overrides).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=env.sh
. "$here/env.sh"
size=${1:-64} iters=${2:-20000} rounds=${3:-2}
"$here/setup.sh" || exit 1
kdir=$("$here/kernel.sh" base) || exit 1
logdir=${KFI_LOGDIR:-$top/.timeline-logs}
rm -rf "$logdir"
mkdir -p "$logdir/modules" "$logdir/src"

echo "== build the modules with KFI_TRACE=1"
(cd "$top" && git ls-files -z --cached --others --exclude-standard) |
	(cd "$top" && xargs -0 cp --parents -t "$logdir/src")
if ! make -s -C "$logdir/src" KDIR="$kdir" RUSTC="$RUSTC" BINDGEN="$BINDGEN" \
		KFI_TESTS=1 KFI_TRACE=1 modules >"$logdir/build.log" 2>&1; then
	tail -30 "$logdir/build.log"
	exit 1
fi
cp "$logdir/src/rust/kfabric.ko" "$logdir/src/kfi_tcp/kfi_tcp.ko" \
	"$logdir/src/tests/pingpong/kfi_pingpong.ko" "$logdir/modules/"

echo "== guest: $size B x $iters, raw and kfi, $rounds rounds"
timeout 900 "$here/vm.sh" "$kdir" --rwdir "$logdir" \
	"$here/timeline/guest.sh $logdir/modules $logdir $rounds raw:spin:$size:$iters kfi:spin:$size:$iters" \
	>"$logdir/vm.log" 2>&1
grep -v "timeline: guest done" "$logdir/guest.log"
last=()
for t in raw kfi; do
	f=$logdir/trace-$t-spin-$size-$rounds.bin
	[ -s "$f" ] || { tail -20 "$logdir/vm.log"; echo "timeline: no trace of $t"; exit 1; }
	last+=("$f")
done
python3 "$here/timeline/timeline.py" "${last[@]}" | tee "$logdir/report.txt"
