#!/usr/bin/env bash
# Locate, and build if missing, the cached test kernel.
#   scripts/kernel.sh [VARIANT]          build if needed, print the build dir
#   scripts/kernel.sh --path [VARIANT]   print the build dir only
# VARIANT: base (default), debug, or for make lnet-check lnet (base with
# what Lustre needs) and lnet-debug.
# The cache key covers the kernel source version, the toolchain versions and the
# config fragments, so any change to one of them gives a new build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=env.sh
. "$here/env.sh"

path_only=0
if [ "${1:-}" = --path ]; then path_only=1; shift; fi
variant=${1:-base}
frags=("$top/tests/kconfig/base.config")
case $variant in
base) ;;
debug) frags+=("$top/tests/kconfig/debug.config") ;;
lnet) frags+=("$top/tests/kconfig/lnet.config") ;;
lnet-debug) frags+=("$top/tests/kconfig/debug.config" "$top/tests/kconfig/lnet.config") ;;
*) echo "kernel.sh: unknown variant '$variant' (base|debug|lnet|lnet-debug)" >&2; exit 2 ;;
esac

key=$( {
	dpkg-query -W -f='${Version}\n' linux-source-6.12
	"$RUSTC" --version
	clang --version | head -1
	echo "bindgen $BINDGEN_VERSION"
	cat "${frags[@]}"
} | sha256sum | cut -c1-16)
dir=$KFABRIC_CACHE/kernel/$variant-$key
if [ $path_only = 1 ] || [ -e "$dir/.kfabric-built" ]; then
	echo "$dir"
	exit 0
fi

log=$KFABRIC_CACHE/kernel/$variant-$key.log
echo "kernel: building the $variant test kernel (6-7 min on 2 cores; log: $log)" >&2
tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
# The build runs in a subshell with its own set -e. It must not be the
# left side of || (bash ignores set -e inside such a list, even where the
# subshell sets it again), so its status is taken afterwards.
set +e
(
	set -e
	tar -C "$tmp" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	cd "$tmp"
	# shellcheck disable=SC2086
	make $KMAKE_FLAGS tinyconfig
	scripts/kconfig/merge_config.sh -m .config "${frags[@]}"
	# shellcheck disable=SC2086
	make $KMAKE_FLAGS olddefconfig
	# Every =y option of the fragments must survive olddefconfig (one
	# whose dependencies are unmet is dropped silently: KASAN under
	# tinyconfig's SLUB_TINY was).
	[ -s .config ]
	dropped=$(grep -hE '^CONFIG_[A-Z0-9_]+=y' "${frags[@]}" | grep -vxF -f .config || true)
	if [ -n "$dropped" ]; then
		echo "kernel.sh: options dropped by olddefconfig (unmet dependencies):" $dropped >&2
		exit 1
	fi
	# shellcheck disable=SC2086
	make $KMAKE_FLAGS -j"$(($(nproc) + 1))" bzImage modules
	# shellcheck disable=SC2086
	make $KMAKE_FLAGS rustavailable
) >"$log" 2>&1
rc=$?
set -e
if [ $rc -ne 0 ]; then
	tail -40 "$log" >&2
	echo "kernel: build failed, see $log" >&2
	exit 1
fi
touch "$tmp/.kfabric-built"
rm -rf "$dir"
mv "$tmp" "$dir"
echo "$dir"
