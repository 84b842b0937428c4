#!/usr/bin/env bash
# make soak: the stress with data checks (tests/stress/kfi_stress.c) for
# longer than make check runs it, alone in the test VM.
#   scripts/soak.sh [base|debug]     SOAK_SECONDS (600), SOAK_ARGS
#   ("threads=8 pairs=4 seed=7 reconnect_ms=500", see kfi_stress.c)
# Prints the run's summary line; exits non-zero when it reports an error
# or the guest's log has a kernel error report (as make check judges).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
variant=${1:-base}
secs=${SOAK_SECONDS:-600}
args=${SOAK_ARGS:-}
# shellcheck source=env.sh
. "$here/env.sh"
cd "$top" || exit 1

"$here/setup.sh" || exit 1
kdir=$("$here/kernel.sh" "$variant") || exit 1
logdir=${KFI_LOGDIR:-$top/.soak-logs}
mkdir -p "$logdir"
echo "== build modules against $kdir"
if ! make -s -C "$top" KDIR="$kdir" RUSTC="$RUSTC" BINDGEN="$BINDGEN" KFI_TESTS=1 modules \
		>"$logdir/build.log" 2>&1; then
	tail -30 "$logdir/build.log"
	exit 1
fi
kodir=$logdir/modules-$variant
rm -rf "$kodir"
mkdir -p "$kodir"
cp rust/kfabric.ko kfi_tcp/kfi_tcp.ko tests/stress/kfi_stress.ko "$kodir/"
guest_log=$logdir/guest-$variant.log
: >"$guest_log"
echo "== stress for $secs s ($variant kernel, QEMU) $args"
# the run itself, then the quiesce and teardown (slow on the debug kernel)
timeout $((secs * 3 + 900)) "$here/vm.sh" "$kdir" --rwdir "$logdir" \
	"$top/tests/stress/soak-guest.sh $kodir $guest_log $secs $args" \
	>"$logdir/vm-$variant.log" 2>&1
vm_rc=$?
grep -a '^kfi_stress:' "$guest_log" | head -1
ok=1
[ $vm_rc -eq 0 ] || { echo "problem: guest run exited $vm_rc"; ok=0; }
grep -aq '^KFI-SOAK PASS' "$guest_log" || { echo "problem: the stress reported errors"; ok=0; }
bad='WARNING:|BUG:|Oops|KASAN|UBSAN|kernel BUG|general protection fault|possible circular locking|inconsistent lock state|possible recursive locking|scheduling while atomic|sleeping function called from invalid context|unreferenced object|Kernel panic|Call Trace:'
if grep -aE "$bad" "$guest_log" >/dev/null; then
	echo "problem: kernel error report in guest dmesg"
	grep -aE -B2 -A12 "$bad" "$guest_log" | head -60
	ok=0
fi
echo "logs: $logdir"
[ $ok -eq 1 ] && echo "soak: passed" || echo "soak: FAILED"
[ $ok -eq 1 ]
