#!/usr/bin/env bash
# make check: host tests, then, for each test kernel, the KUnit suites and
# integration checks in the test VM. Prints per-suite results and ends with
# "N passed, N failed" counting everything of every kernel. Exits non-zero
# on any failure, on any kernel error report in a guest, and when a result
# listed in tests/guest/expected is missing (or one not listed appears).
#   scripts/check.sh [base] [debug]      (default: both, base first)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
variants=("$@")
[ ${#variants[@]} -eq 0 ] && variants=(base debug)
# shellcheck source=env.sh
. "$here/env.sh"
cd "$top" || exit 1
t_start=$SECONDS

"$here/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }

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

# Kernel error reports in a guest's log (its dmesg and the tests' output).
bad='WARNING:|BUG:|Oops|KASAN|UBSAN|kernel BUG|general protection fault|possible circular locking|inconsistent lock state|possible recursive locking|scheduling while atomic|sleeping function called from invalid context|unreferenced object|Kernel panic|Call Trace:|ODEBUG:|list_add corruption|list_del corruption'

# expected KIND VARIANT: the names tests/guest/expected lists for it
expected() {
	awk -v k="$1" -v v="$2" '$1 == k && (NF == 2 || $3 == v) { print $2 }' \
		"$top/tests/guest/expected"
}

# run_variant VARIANT: build, boot, run, count. Adds to passed/failed/
# skipped/problems (problems prefixed with the variant).
run_variant() {
	local v=$1 kdir kodir guest_log vm_rc t0=$SECONDS
	local vp=0 vf=0 vs=0 vprob=()
	echo "== $v kernel"
	if ! kdir=$("$here/kernel.sh" "$v"); then
		problems+=("$v: test kernel build failed")
		return
	fi
	echo "== build modules against $kdir"
	if ! make -s -C "$top" KDIR="$kdir" RUSTC="$RUSTC" BINDGEN="$BINDGEN" KFI_TESTS=1 modules \
			>"$logdir/build-$v.log" 2>&1; then
		tail -30 "$logdir/build-$v.log"
		problems+=("$v: module build failed")
		return
	fi
	if grep -E '(^|[^-])warning:' "$logdir/build-$v.log" | grep -v 'compiler differs' >/dev/null; then
		grep -E 'warning:' -A3 "$logdir/build-$v.log" | head -20
		vprob+=("build warnings")
	fi

	# The guest loads its modules from a copy, so that a build in the tree
	# while the guest runs cannot hand it modules of another kernel.
	kodir=$logdir/modules-$v
	rm -rf "$kodir"
	mkdir -p "$kodir"
	find rust kfi_tcp kfi_verbs tests -name '*.ko' -exec cp {} "$kodir/" \;

	# The guest appends its results to $guest_log as it goes (a writable
	# shared directory), so a run cut short by the timeout still shows how
	# far it got.
	guest_log=$logdir/guest-$v.log
	: >"$guest_log"
	# how others build and install it (make install, man, DKMS): checked
	# on the host, results into the guest's log like its own; the modules
	# DKMS built go to the guest in $kodir/dkms
	if [ "$v" = base ]; then
		echo "== install, man pages, DKMS (host)"
		"$here/install-check.sh" "$kdir" "$kodir" 2>&1 | tee "$logdir/install-check.log" |
			grep -a -E '^KFI-RESULT |^    ' >>"$guest_log"
	fi
	echo "== guest ($v kernel, QEMU)"
	# Bounds: base ~7 min; debug ~33 min (KASAN slows everything about
	# five times, the boot alone takes ~3.5 min).
	local limit=1800
	[ "$v" = debug ] && limit=3600
	timeout $limit "$here/vm.sh" "$kdir" --rwdir "$logdir" \
		"$top/tests/guest/run.sh check $kodir $guest_log" >"$logdir/vm-$v.log" 2>&1
	vm_rc=$?
	if [ $vm_rc -ne 0 ]; then
		tail -5 "$logdir/vm-$v.log"
		grep -a '^KFI-STEP' "$guest_log" | tail -3
		vprob+=("guest run exited $vm_rc")
	fi

	# integration checks
	local verdict name
	while read -r _ verdict name; do
		if [ "$verdict" = PASS ]; then
			vp=$((vp + 1))
		else
			vf=$((vf + 1))
			echo "integration: FAIL $name"
		fi
	done < <(grep -a '^KFI-RESULT ' "$guest_log")
	echo "integration: $vp passed, $vf failed"
	grep -a -A20 '^KFI-RESULT FAIL' "$guest_log" | grep -a '^    ' | head -40

	# KUnit: each suite's KTAP; cases are the "ok N"/"not ok N" lines one
	# level in.
	local suite ktap sp ss sf
	while read -r suite; do
		ktap=$(awk -v s="$suite" '$0 == "KFI-KTAP-BEGIN " s { on = 1; next } $0 == "KFI-KTAP-END " s { on = 0 } on' "$guest_log")
		sp=$(grep -cE '^    ok [0-9]+ [^#]*$' <<<"$ktap")
		ss=$(grep -cE '^    ok [0-9]+ .*# SKIP' <<<"$ktap")
		sf=$(grep -cE '^    not ok [0-9]+ ' <<<"$ktap")
		echo "kunit: $suite: $sp passed, $sf failed, $ss skipped"
		grep -E '^    not ok|^        # .*(Expected|ASSERTION|EXPECTATION)|^        [^#]' <<<"$ktap" | head -30
		vp=$((vp + sp))
		vf=$((vf + sf))
		vs=$((vs + ss))
	done < <(grep -a '^KFI-KTAP-BEGIN ' "$guest_log" | awk '{ print $2 }')

	# every expected result exactly once, nothing unlisted
	local kind marker got n exp
	for kind in check suite; do
		if [ $kind = check ]; then
			got=$(grep -a '^KFI-RESULT ' "$guest_log" | awk '{ print $3 }')
		else
			got=$(grep -a '^KFI-KTAP-BEGIN ' "$guest_log" | awk '{ print $2 }')
		fi
		while read -r name; do
			[ -n "$name" ] || continue
			n=$(grep -cx -- "$name" <<<"$got")
			[ "$n" -eq 1 ] || vprob+=("$kind $name reported $n times (expected once)")
		done < <(expected $kind "$v")
		# (the list is captured first: with pipefail, `expected | grep -q`
		# fails when grep exits before awk has written everything)
		exp=$(expected $kind "$v")
		while read -r name; do
			[ -n "$name" ] || continue
			grep -qx -- "$name" <<<"$exp" ||
				vprob+=("$kind $name is not listed in tests/guest/expected")
		done < <(sort -u <<<"$got")
	done

	# figures the tests print ("KFI-FIGURE name value")
	grep -a '^KFI-FIGURE ' "$guest_log" | while read -r _ name value; do
		echo "figure: $v: $name $value"
	done
	# the stress's summary (tests/stress/)
	grep -a '^KFI-STRESS ' "$guest_log" | sed "s/^KFI-STRESS /stress: $v: /"

	if grep -aE "$bad" "$guest_log" >/dev/null; then
		vprob+=("kernel error report in guest log")
		grep -aE -B2 -A12 "$bad" "$guest_log" | head -60
	fi

	local p
	for p in "${vprob[@]}"; do
		problems+=("$v: $p")
	done
	echo "$v: $((vp + vs)) passed, $((vf + ${#vprob[@]})) failed ($((SECONDS - t0)) s)"
	passed=$((passed + vp))
	failed=$((failed + vf))
	skipped=$((skipped + vs))
}

for v in "${variants[@]}"; do
	case $v in
	base | debug) run_variant "$v" ;;
	*) problems+=("unknown kernel variant '$v' (base|debug)") ;;
	esac
done

for p in "${problems[@]}"; do
	echo "problem: $p"
	failed=$((failed + 1))
done
echo "logs: $logdir; took $((SECONDS - t_start)) s"
# The last line is always exactly "N passed, N failed" and counts every
# case of every kernel: a skipped KUnit case is KTAP "ok" (it found the
# host too slow to judge, see testing.md) and counts as passed; the line
# before says so.
if [ "$skipped" -gt 0 ]; then
	echo "kunit: $skipped of the passed cases skipped (ok # SKIP)"
fi
echo "$((passed + skipped)) passed, $failed failed"
[ "$failed" -eq 0 ]
