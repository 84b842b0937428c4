#!/usr/bin/env bash
# make lnet-check LUSTRE=<lustre-release checkout> [KERNEL=base|debug]:
# unmodified Lustre LNet (kfilnd) over kfabric between two test guests,
# compared with LNet's own drivers (Documentation/lnet.md).
#   scripts/lnet-check.sh LUSTRE [base|debug] [LND...]
# LND: kfi-tcp kfi-verbs socklnd o2ib (default: all four, in that order);
# none: build only.
# Builds the lnet test kernel (tests/kconfig/lnet.config on top of base or
# debug), our modules and the Lustre tree (a copy of LUSTRE with
# tests/lnet/lustre-kfi-symvers.patch applied: see that file) against it,
# then per LND boots two guests joined by a QEMU socket network and runs
# tests/lnet/node.sh in each: LNet up, lnetctl ping, lnet_selftest brw
# write and read of 1 MiB with check=full for KFI_LNET_SECONDS (30) each.
# Ends with "N passed, N failed"; logs in .lnet-logs/ (KFI_LOGDIR).
# KFI_LNET_DEBUG=1: LNet's network debug messages in the kernel logs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=env.sh
. "$here/env.sh"

lustre=$(cd "${1:?usage: lnet-check.sh LUSTRE [base|debug] [LND...]}" && pwd) || exit 2
variant=${2:-base}
shift 2 2>/dev/null || shift $#
lnds=("$@")
[ ${#lnds[@]} -eq 0 ] && lnds=(kfi-tcp kfi-verbs socklnd o2ib)
case $variant in
base) kv=lnet ;;
debug) kv=lnet-debug ;;
*) echo "lnet-check: KERNEL is base or debug" >&2; exit 2 ;;
esac
secs=${KFI_LNET_SECONDS:-30}
logdir=${KFI_LOGDIR:-$top/.lnet-logs}
mkdir -p "$logdir"
out=$KFABRIC_CACHE/lnet/$kv
mkdir -p "$out"

# Packages Lustre's build needs (configure: autotools, libyaml, libnl3;
# keyutils for its keyring code, libmount for its utilities).
LNET_APT="autoconf automake libtool pkg-config libyaml-dev libnl-genl-3-dev libnl-3-dev libkeyutils-dev libmount-dev"
"$here/setup.sh" || exit 1
# shellcheck disable=SC2086
if ! dpkg -s $LNET_APT >/dev/null 2>&1; then
	echo "== apt: $LNET_APT"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $LNET_APT >"$logdir/apt.log" 2>&1 ||
		{ tail "$logdir/apt.log"; exit 1; }
fi
kdir=$("$here/kernel.sh" "$kv") || exit 1

# Our modules, built in a copy of the tracked files (the tree's own
# objects stay those of its last build), and what --with-kfi wants: the
# headers and Module.symvers.
echo "== kfabric modules against $kdir"
rm -rf "$out/kfabric" "$out/kfi"
mkdir -p "$out/kfabric" "$out/kfi"
git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -cf -) | tar -C "$out/kfabric" -xf -
if ! make -C "$kdir" M="$out/kfabric" $KMAKE_FLAGS modules >"$logdir/kfabric-build.log" 2>&1; then
	tail -30 "$logdir/kfabric-build.log"
	exit 1
fi
cp -r "$top/include" "$out/kfi/include"
cp "$out/kfabric/Module.symvers" "$out/kfi/Module.symvers"
kfab=$out/kfabric/ko
mkdir -p "$kfab"
cp "$out/kfabric/rust/kfabric.ko" "$out/kfabric/kfi_tcp/kfi_tcp.ko" "$out/kfabric/kfi_verbs/kfi_verbs.ko" "$kfab/"

# Lustre, rebuilt when its tree, the patch, the kernel or our headers
# change.
rev=$(git -C "$lustre" rev-parse HEAD 2>/dev/null || echo unknown)
key=$( { echo "$rev"; git -C "$lustre" diff HEAD 2>/dev/null; cat "$top/tests/lnet/lustre-kfi-symvers.patch";
	echo "$kdir"; cat "$top"/include/*.h; } | sha256sum | cut -c1-16)
lus=$out/lustre
if [ "$(cat "$lus/.kfi-built" 2>/dev/null)" != "$key" ]; then
	echo "== Lustre $rev: configure and build (log: $logdir/lustre-build.log)"
	rm -rf "$lus"
	mkdir -p "$lus"
	(cd "$lustre" && tar --exclude=.git -cf - .) | tar -C "$lus" -xf -
	set +e
	(
		set -e
		cd "$lus"
		# The only change to Lustre's build files (see the patch's header).
		patch -p1 <"$top/tests/lnet/lustre-kfi-symvers.patch"
		sh autogen.sh
		# clang, as the kernel was built (LLVM=1 from the environment for
		# kbuild); clang's warnings in Lustre are not ours to fix.
		LLVM=1 CC=clang ./configure --with-linux="$kdir" --with-kfi="$out/kfi" \
			--disable-server --disable-client --disable-tests --disable-iokit \
			--disable-doc --disable-strict-errors --disable-gss-keyring
		# -k: lustre/tests wants test images a checkout may lack
		# (large files); what this check needs is listed below.
		LLVM=1 make -k -j"$(($(nproc) + 1))" || true
	) >"$logdir/lustre-build.log" 2>&1
	# (not "( ... ) || ...": bash ignores set -e in a subshell on the
	# left of ||)
	rc=$?
	for f in lnet/libcfs/libcfs.ko lnet/lnet/lnet.ko lnet/klnds/kfilnd/kkfilnd.ko \
		lnet/klnds/socklnd/ksocklnd.ko lnet/klnds/in-kernel-o2iblnd/ko2iblnd.ko \
		lnet/selftest/lnet_selftest.ko lnet/utils/lnetctl lnet/utils/lst; do
		[ -e "$lus/$f" ] || { echo "lnet-check: the Lustre build made no $f" >&2; rc=1; }
	done
	[ $rc -eq 0 ] || { tail -40 "$logdir/lustre-build.log"; exit 1; }
	echo "$key" >"$lus/.kfi-built"
fi
# kfilnd's optional paths are on (the patch's purpose).
for d in HAVE_KFI_SGL HAVE_KFI_CXI_DOM_OPS; do
	grep -q "define $d 1" "$lus/config.h" || echo "lnet-check: $d not defined: kfilnd builds without it" >&2
done

# LND "none": the builds only.
[ "${lnds[*]}" = none ] && { echo "built: $kfab, $lus"; exit 0; }

pass=0 fail=0
port=$((47700 + RANDOM % 200))
for lnd in "${lnds[@]}"; do
	echo "== $lnd: two guests"
	shared=$(mktemp -d "$logdir/shared.XXXX")
	chmod 777 "$shared"
	for role in 1 2; do
		if [ $role = 1 ]; then net="listen=127.0.0.1:$port"; else net="connect=127.0.0.1:$port"; fi
		KFI_VM_CPUS=1 KFI_QEMU_OPTS="-netdev socket,id=ln0,$net -device virtio-net-pci,netdev=ln0,mac=52:54:00:4c:4e:0$role" \
			timeout $((8 * secs + 900)) "$here/vm.sh" "$kdir" --rwdir "$shared" --rodir "$out" \
			"KFI_LNET_DEBUG=${KFI_LNET_DEBUG:-0} $top/tests/lnet/node.sh $role $lnd $kfab $lus $shared $secs" >"$logdir/$lnd-$role.log" 2>&1 &
		[ $role = 1 ] && sleep 8
	done
	wait
	port=$((port + 1))
	for role in 1 2; do
		# the node's own record (node.sh): the console loses lines
		log=$logdir/$lnd-$role.log
		cp "$shared/node.$role" "$logdir/$lnd-$role.results" 2>/dev/null
		cp "$shared/dmesg.$role" "$logdir/$lnd-$role.dmesg" 2>/dev/null ||
			cp "$shared/dmesg.$role.live" "$logdir/$lnd-$role.dmesg" 2>/dev/null
		if [ ! -e "$shared/dmesg.$role" ]; then
			echo "  $lnd.$role.guest fail (no complete run; see $log)"
			fail=$((fail + 1))
		fi
		while read -r _ name res detail; do
			echo "  $name $res $detail"
			if [ "$res" = ok ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
		done < <(grep -a '^LNET-RESULT ' "$shared/node.$role" 2>/dev/null)
		grep -a '^LNET-FIGURE ' "$shared/node.$role" 2>/dev/null | sed 's/^LNET-FIGURE /  figure: /'
	done
	rm -rf "$shared"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
