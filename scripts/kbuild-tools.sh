#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The compilers to build our modules with against a kernel build tree: the
# ones that built it. Rust objects only link with the rustc that compiled
# the kernel's own crates (another one fails with thousands of lines of
# "compiled by an incompatible version of rustc"), and our bindings are
# generated with the tree's bindgen.
#
#   kbuild-tools.sh KDIR [RUSTC] [BINDGEN]
#
# Reads CONFIG_RUSTC_VERSION_TEXT and CONFIG_BINDGEN_VERSION_TEXT from
# KDIR/include/config/auto.conf and prints the kbuild variables to pass
# ("LLVM=1 RUSTC=/usr/bin/rustc BINDGEN=/usr/bin/bindgen"; LLVM= when the
# tree was built with clang: see below). A RUSTC or BINDGEN given is checked, not
# searched for; otherwise the first installed compiler whose --version
# equals the tree's is taken, from: the one on PATH, /usr/bin,
# /usr/local/bin, versioned names (rustc-1.80, Ubuntu's /usr/lib/rust-*),
# rustup's toolchains, ~/.cargo/bin and $KFABRIC_CACHE/tools/bin.
# Without a match it prints one line on stderr naming both versions and
# the variable to set, and exits 1.
set -u
kdir=${1:?usage: kbuild-tools.sh KDIR [RUSTC] [BINDGEN]}
want_rustc=${2:-}
want_bindgen=${3:-}
conf=$kdir/include/config/auto.conf

die() {
	echo "kfabric: $*" >&2
	exit 1
}

[ -r "$conf" ] || die "$kdir is not a configured kernel build tree (no include/config/auto.conf): set KDIR to one (e.g. /lib/modules/\$(uname -r)/build)"
conf_val() { # conf_val NAME: the value of CONFIG_NAME, quotes removed
	sed -n "s/^CONFIG_$1=//p" "$conf" | sed 's/^"\(.*\)"$/\1/'
}
[ "$(conf_val RUST)" = y ] || die "$kdir was configured without CONFIG_RUST=y: kfabric's modules are Rust and need a Rust-enabled kernel"

# clang: LLVM=1 when the clang on PATH is the tree's (CONFIG_CC_VERSION_TEXT),
# else LLVM=<dir>/ of an installed one that is (Debian's /usr/lib/llvm-N),
# else LLVM=1 anyway (kbuild then warns that the compiler differs: C
# objects still link).
out=
if [ "$(conf_val CC_IS_CLANG)" = y ]; then
	out="LLVM=1"
	cc_text=$(conf_val CC_VERSION_TEXT)
	if [ "$(clang --version 2>/dev/null | head -1)" != "$cc_text" ]; then
		major=$(( $(conf_val CLANG_VERSION) / 10000 ))
		for d in /usr/lib/llvm-$major/bin /usr/lib/llvm/$major/bin /usr/local/bin /usr/bin; do
			if [ "$("$d/clang" --version 2>/dev/null | head -1)" = "$cc_text" ]; then
				out="LLVM=$d/"
				break
			fi
		done
	fi
fi

# candidates NAME: every installed binary that may be NAME, in order of
# preference, one per line (duplicates are harmless)
candidates() {
	local n=$1 p
	command -v "$n" 2>/dev/null
	for p in /usr/bin/"$n" /usr/local/bin/"$n" /usr/bin/"$n"-[0-9]* \
		/usr/lib/rust-*/bin/"$n" "${RUSTUP_HOME:-$HOME/.rustup}"/toolchains/*/bin/"$n" \
		"${CARGO_HOME:-$HOME/.cargo}"/bin/"$n" "${KFABRIC_CACHE:-/var/cache/kfabric}"/tools/bin/"$n"; do
		[ -x "$p" ] && echo "$p"
	done
}

# pick VAR NAME WANTED GIVEN: sets $picked to the binary for VAR
pick() {
	local var=$1 name=$2 wanted=$3 given=$4 c v first=
	picked=
	if [ -n "$given" ]; then
		v=$("$given" --version 2>/dev/null | head -1)
		[ "$v" = "$wanted" ] ||
			die "$kdir was built with $wanted, but $var=$given is ${v:-not runnable}: set $var to a $name of that version"
		picked=$given
		return
	fi
	while read -r c; do
		[ -n "$c" ] || continue
		v=$("$c" --version 2>/dev/null | head -1)
		[ -n "$first" ] || first="the first found, $c, is ${v:-not runnable}"
		if [ "$v" = "$wanted" ]; then
			picked=$c
			return
		fi
	done < <(candidates "$name")
	die "$kdir was built with $wanted, but no installed $name is that version (${first:-none found}): install it and set $var=/path/to/$name"
}

rustc_text=$(conf_val RUSTC_VERSION_TEXT)
[ -n "$rustc_text" ] || die "$conf has no CONFIG_RUSTC_VERSION_TEXT: set RUSTC and BINDGEN to the compilers that built $kdir"
pick RUSTC rustc "$rustc_text" "$want_rustc"
out="$out RUSTC=$picked"

bindgen_text=$(conf_val BINDGEN_VERSION_TEXT)
if [ -n "$bindgen_text" ]; then
	pick BINDGEN bindgen "$bindgen_text" "$want_bindgen"
	out="$out BINDGEN=$picked"
elif [ -n "$want_bindgen" ]; then
	out="$out BINDGEN=$want_bindgen"
fi
echo "${out# }"
