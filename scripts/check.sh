#!/usr/bin/env bash
# make check: host tests, then KUnit suites and integration checks in the
# test VM. Prints per-suite results and ends with "N passed, N failed".
# Exits non-zero on any failure or on any kernel error report in the guest.
#   scripts/check.sh [base|debug]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
variant=${1:-base}
# shellcheck source=env.sh
. "$here/env.sh"
cd "$top" || exit 1

"$here/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }
kdir=$("$here/kernel.sh" "$variant") || { echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
skipped=0
problems=()
logdir=${KFI_LOGDIR:-$top/.check-logs}
mkdir -p "$logdir"

# ---- host tests (cargo test over the kernel-independent logic)
echo "== host tests"
cargo test --locked --quiet 2>&1 | tee "$logdir/host.log" | grep -E '^test result|panicked|FAILED' || true
host_rc=${PIPESTATUS[0]}
read -r hp hf < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { print p + 0, f + 0 }' "$logdir/host.log")
if [ "$host_rc" -ne 0 ] && [ "$hf" -eq 0 ]; then
	hf=1
	problems+=("cargo test exited $host_rc")
fi
echo "host: $hp passed, $hf failed"
passed=$((passed + hp))
failed=$((failed + hf))

# ---- modules
echo "== build modules against $kdir"
if ! make -s -C "$top" KDIR="$kdir" RUSTC="$RUSTC" BINDGEN="$BINDGEN" KFI_TESTS=1 modules \
		>"$logdir/build.log" 2>&1; then
	tail -30 "$logdir/build.log"
	echo "$passed passed, $((failed + 1)) failed"
	exit 1
fi
if grep -E '(^|[^-])warning:' "$logdir/build.log" | grep -v 'compiler differs' >/dev/null; then
	grep -E 'warning:' -A3 "$logdir/build.log" | head -20
	problems+=("build warnings")
fi

# The guest loads its modules from a copy, so that a build in the tree
# while the guest runs cannot hand it modules of another kernel.
kodir=$logdir/modules-$variant
rm -rf "$kodir"
mkdir -p "$kodir"
find rust kfi_tcp tests -name '*.ko' -exec cp {} "$kodir/" \;

# ---- guest
echo "== guest ($variant kernel, QEMU)"
# The guest appends its results to $guest_log as it goes (a writable shared
# directory), so a run cut short by the timeout still shows how far it got.
guest_log=$logdir/guest-$variant.log
: >"$guest_log"
timeout 1800 "$here/vm.sh" "$kdir" --rwdir "$logdir" \
	"$top/tests/guest/run.sh check $kodir $guest_log" >"$logdir/vm-$variant.log" 2>&1
vm_rc=$?
if [ $vm_rc -ne 0 ]; then
	tail -5 "$logdir/vm-$variant.log"
	grep -a '^KFI-STEP' "$guest_log" | tail -3
fi
if [ $vm_rc -ne 0 ]; then
	problems+=("guest run exited $vm_rc")
fi

# integration checks
while read -r _ verdict name; do
	if [ "$verdict" = PASS ]; then
		passed=$((passed + 1))
		echo "integration: ok   $name"
	else
		failed=$((failed + 1))
		echo "integration: FAIL $name"
	fi
done < <(grep -a '^KFI-RESULT ' "$guest_log")
grep -a -A20 '^KFI-RESULT FAIL' "$guest_log" | grep -a '^    ' | head -40
# the stress's figures (tests/stress/)
grep -a '^KFI-STRESS ' "$guest_log" | sed 's/^KFI-STRESS /stress: /'

# KUnit: each suite's KTAP; cases are the "ok N"/"not ok N" lines one level in.
suites=0
while read -r suite; do
	suites=$((suites + 1))
	ktap=$(awk -v s="$suite" '$0 == "KFI-KTAP-BEGIN " s { on = 1; next } $0 == "KFI-KTAP-END " s { on = 0 } on' "$guest_log")
	sp=$(grep -cE '^    ok [0-9]+ [^#]*$' <<<"$ktap")
	ss=$(grep -cE '^    ok [0-9]+ .*# SKIP' <<<"$ktap")
	sf=$(grep -cE '^    not ok [0-9]+ ' <<<"$ktap")
	echo "kunit: $suite: $sp passed, $sf failed, $ss skipped"
	grep -E '^    not ok|^        # .*(Expected|ASSERTION|EXPECTATION)|^        [^#]' <<<"$ktap" | head -30
	passed=$((passed + sp))
	failed=$((failed + sf))
	skipped=$((skipped + ss))
done < <(grep -a '^KFI-KTAP-BEGIN ' "$guest_log" | awk '{ print $2 }')
expected_suites=11
if [ "$suites" -lt "$expected_suites" ]; then
	problems+=("only $suites of $expected_suites KUnit suites reported")
fi

# kernel error reports anywhere in the guest's log
bad='WARNING:|BUG:|Oops|KASAN|UBSAN|kernel BUG|general protection fault|possible circular locking|inconsistent lock state|possible recursive locking|scheduling while atomic|sleeping function called from invalid context|unreferenced object|Kernel panic|Call Trace:'
if grep -aE "$bad" "$guest_log" >/dev/null; then
	problems+=("kernel error report in guest dmesg")
	grep -aE -B2 -A12 "$bad" "$guest_log" | head -60
fi

for p in "${problems[@]}"; do
	echo "problem: $p"
	failed=$((failed + 1))
done
echo "logs: $logdir"
# The last line is always exactly "N passed, N failed" and counts every
# case: a skipped KUnit case is KTAP "ok" (it found the host too slow to
# judge, see testing.md) and counts as passed; the line before says so.
if [ "$skipped" -gt 0 ]; then
	echo "kunit: $skipped of the passed cases skipped (ok # SKIP)"
fi
echo "$((passed + skipped)) passed, $failed failed"
[ "$failed" -eq 0 ]
