#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's host-side checks of how kfabric is built and installed by
# others (part of the base kernel's half, before its guest runs):
#   - the compiler choice against a kernel tree (scripts/kbuild-tools.sh):
#     the tree's rustc/bindgen found among those installed, and one line
#     naming both versions when none matches;
#   - make man: a page for every exported kfi_* call and every static
#     inline wrapper in include/, each one rendering;
#   - make install / make uninstall into a staging DESTDIR, and a consumer
#     module built against the installed headers and Module.symvers only
#     (as Lustre's --with-kfi= build does);
#   - DKMS: make dkms-src, then dkms add/build/install against KDIR, with
#     private DKMS trees and /lib/modules in a private mount namespace.
#
#   install-check.sh KDIR OUTDIR
#
# Prints "KFI-RESULT PASS|FAIL <name>" per check (details indented after a
# failure), as the guest does: scripts/check.sh counts them and
# tests/guest/expected lists them. Leaves the DKMS-built modules and the
# consumer in OUTDIR/dkms/, which the guest loads (check
# dkms_modules_work in tests/guest/run.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
kdir=${1:?usage: install-check.sh KDIR OUTDIR}
out=${2:?usage: install-check.sh KDIR OUTDIR}
cd "$top" || exit 1

work=$(mktemp -d /tmp/kfi-install-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
rm -rf "$out/dkms"
mkdir -p "$out/dkms"
log=$work/check.log
rel=$(cat "$kdir/include/config/kernel.release")
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

result() { # result NAME CMD...
	local name=$1
	shift
	if "$@" >"$log" 2>&1; then
		echo "KFI-RESULT PASS $name"
	else
		echo "KFI-RESULT FAIL $name"
		sed 's/^/    /' "$log" | tail -30
	fi
}

conf_text() { sed -n "s/^CONFIG_$1=//p" "$kdir/include/config/auto.conf" | sed 's/^"\(.*\)"$/\1/'; }

# A rustc that is not the tree's first on PATH: the tree's is still found.
kbuild_tools_find_match() {
	local fake=$work/fakebin tools r
	mkdir -p "$fake"
	printf '#!/bin/sh\necho "rustc 1.0.0 (00000000 2015-05-15)"\n' >"$fake/rustc"
	chmod +x "$fake/rustc"
	tools=$(PATH=$fake:$PATH "$here/kbuild-tools.sh" "$kdir") || return 1
	echo "chosen: $tools"
	r=$(sed -n 's/.*RUSTC=\([^ ]*\).*/\1/p' <<<"$tools")
	[ -n "$r" ] && [ "$r" != "$fake/rustc" ] || { echo "no RUSTC, or the fake one"; return 1; }
	[ "$("$r" --version | head -1)" = "$(conf_text RUSTC_VERSION_TEXT)" ] || { echo "$r is not the tree's rustc"; return 1; }
	grep -q 'BINDGEN=' <<<"$tools" || { echo "no BINDGEN"; return 1; }
}

# fake_tree DIR NAME VALUE: a copy of KDIR's config with CONFIG_NAME=VALUE
fake_tree() {
	mkdir -p "$1/include/config"
	sed "s/^CONFIG_$2=.*/CONFIG_$2=$3/" "$kdir/include/config/auto.conf" >"$1/include/config/auto.conf"
	echo "$rel" >"$1/include/config/kernel.release"
}

# one_line_stop WANT_VAR WANT_TEXT [MAKE ARGS...]: make modules stops at
# once with exactly one line, which names the tree's version, the one
# found and the variable to set
one_line_stop() {
	local var=$1 want=$2 outp rc
	shift 2
	outp=$(make -C "$top" --no-print-directory "$@" modules 2>&1)
	rc=$?
	echo "exit $rc, output:"
	echo "$outp"
	[ $rc -ne 0 ] || return 1
	[ "$(wc -l <<<"$outp")" -eq 1 ] || { echo "not one line"; return 1; }
	grep -qF "$want" <<<"$outp" || { echo "the tree's version is not named"; return 1; }
	grep -qE "(is|found, [^ ]*, is) [a-z]+ [0-9]" <<<"$outp" || { echo "the version found is not named"; return 1; }
	grep -qF "$var=" <<<"$outp" || { echo "$var= is not named"; return 1; }
}
kbuild_rustc_mismatch() {
	fake_tree "$work/t-rustc" RUSTC_VERSION_TEXT "rustc 1.99.9 (kfabric-test 2030-01-01)"
	one_line_stop RUSTC "rustc 1.99.9 (kfabric-test 2030-01-01)" KDIR="$work/t-rustc"
}
kbuild_rustc_given_mismatch() {
	local fake=$work/fakebin
	one_line_stop RUSTC "$(conf_text RUSTC_VERSION_TEXT)" KDIR="$kdir" RUSTC="$fake/rustc"
}
kbuild_bindgen_mismatch() {
	fake_tree "$work/t-bindgen" BINDGEN_VERSION_TEXT "bindgen 0.0.1"
	one_line_stop BINDGEN "bindgen 0.0.1" KDIR="$work/t-bindgen"
}

# make man: every API name has its page, and every page renders cleanly
man_pages_cover_api() {
	local names n=0 missing=0 name page warn
	make -C "$top" --no-print-directory man KDIR="$kdir" || return 1
	# the exported calls of the API (declared in include/; kfi_trace_on,
	# a variable for the providers, is not one), and the static inline
	# functions of the headers (comments stripped first)
	names=$( {
		grep -ohE 'EXPORT_SYMBOL(_GPL)?\(kfi_[a-z0-9_]+\)' rust/*.c | sed 's/.*(\(.*\))/\1/' |
			while read -r n; do grep -qE "\b$n\(" include/*.h && echo "$n"; done
		perl -0777 -pe 's{/\*.*?\*/}{}gs' include/*.h |
			perl -0777 -ne 'while (/static\s+inline\s+[^;{(]*?\b(\w+)\s*\(/gs) { print "$1\n" }'
	} | sort -u)
	for name in $names; do
		n=$((n + 1))
		page=man/man3/$name.3
		if [ ! -f "$page" ] || ! grep -q "^\.TH \"$name\" 3 " "$page"; then
			echo "no page for $name"
			missing=$((missing + 1))
		fi
	done
	echo "$n API names, $missing without a page; $(ls man/man3 | wc -l) pages"
	[ "$n" -gt 250 ] && [ "$missing" -eq 0 ] || return 1
	# groff's warnings (all of them) on every page, and man's rendering of one
	warn=$(groff -man -Tutf8 -ww -z man/man3/* 2>&1)
	[ -z "$warn" ] || { echo "$warn" | head; return 1; }
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l man/man3/kfi_getinfo.3 2>/dev/null | grep -q 'kfi_getinfo - Find fabric' ||
			{ echo "man -l kfi_getinfo.3 does not show its NAME"; return 1; }
	fi
}

stage=$work/stage
# make install into DESTDIR: modules (depmod'ed), headers, symvers, pages
make_install_staged() {
	local ko f
	make -C "$top" --no-print-directory install DESTDIR="$stage" KDIR="$kdir" || return 1
	for ko in kfabric kfi_tcp kfi_pingpong kfi_verbs; do
		f=$(find "$stage/lib/modules/$rel/extra" -name "$ko.ko")
		[ -n "$f" ] || { echo "$ko.ko not installed"; return 1; }
	done
	grep -E '^extra/.*kfi_tcp\.ko: extra/.*kfabric\.ko$' "$stage/lib/modules/$rel/modules.dep" ||
		{ echo "depmod did not record kfi_tcp's dependency on kfabric"; return 1; }
	for f in include/*.h; do
		cmp "$f" "$stage/usr/src/kfabric/include/$(basename "$f")" || return 1
	done
	for f in kfi_getinfo kfi_fabric kfi_strerror __kfi_provider_register; do
		grep -qE "^0x[0-9a-f]+[[:space:]]$f[[:space:]]" "$stage/usr/src/kfabric/Module.symvers" ||
			{ echo "Module.symvers lacks $f"; return 1; }
	done
	[ "$(ls "$stage/usr/share/man/man3" | wc -l)" -eq "$(ls man/man3 | wc -l)" ] ||
		{ echo "not every man page installed"; return 1; }
	[ -x "$stage/usr/bin/kfi_info" ] || { echo "kfi_info not installed"; return 1; }
	"$stage/usr/bin/kfi_info" --help | grep -q -- '-p PROVIDER' || { echo "kfi_info --help"; return 1; }
	echo "installed: $(wc -l <"$stage/usr/src/kfabric/installed-files") files"
}

# A module of a consumer's own, built against only what make install put
# in /usr/src/kfabric (its headers and Module.symvers): the public API
# resolves, nothing is undefined.
installed_headers_build_consumer() {
	local c=$work/consumer tools
	mkdir -p "$c"
	cp tests/consumer/kfi_consumer.c "$c/"
	printf 'obj-m := kfi_consumer.o\nccflags-y := -I$(KFI_DIR)/include\n' >"$c/Kbuild"
	tools=$("$here/kbuild-tools.sh" "$kdir" "${RUSTC:-}" "${BINDGEN:-}") || return 1
	# shellcheck disable=SC2086
	make -C "$kdir" M="$c" $tools KFI_DIR="$stage/usr/src/kfabric" \
		KBUILD_EXTRA_SYMBOLS="$stage/usr/src/kfabric/Module.symvers" modules 2>&1 | tee "$work/consumer.log"
	[ -f "$c/kfi_consumer.ko" ] || return 1
	! grep -E 'undefined!|WARNING: modpost' "$work/consumer.log" || return 1
	cp "$c/kfi_consumer.ko" "$out/dkms/"
}

# make uninstall: every file make install put there is gone (depmod's
# indexes of the release directory stay), and modules.dep no longer
# names our modules
make_uninstall_staged() {
	local left
	make -C "$top" --no-print-directory uninstall DESTDIR="$stage" || return 1
	left=$(cd "$stage" && find . -type f ! -path "./lib/modules/$rel/modules.*")
	[ -z "$left" ] || { echo "left behind:"; echo "$left"; return 1; }
	! grep -E 'kfabric|kfi_' "$stage/lib/modules/$rel/modules.dep" || return 1
	[ ! -e "$stage/usr/src/kfabric" ] || { echo "/usr/src/kfabric left"; return 1; }
}

# DKMS, as a distribution runs it: make dkms-src into the source tree,
# dkms add, build (against KDIR, named by dkms as the release's build
# directory) and install; then dkms status. /lib/modules is a directory
# of ours in a private mount namespace (this machine's is not touched).
dkms_build_install() {
	local src=$work/dkms/src tree=$work/dkms/tree mods=$work/dkms/modules made_libmod=
	local dk=(--sourcetree "$src" --dkmstree "$tree")
	mkdir -p "$src" "$tree" "$mods/$rel"
	ln -s "$kdir" "$mods/$rel/build"
	make -C "$top" --no-print-directory dkms-src DKMS_SRC_DIR="$src/kfabric-$version" || return 1
	dkms add -m kfabric -v "$version" "${dk[@]}" || return 1
	if [ ! -d /lib/modules ]; then
		mkdir /lib/modules && made_libmod=1
	fi
	unshare -m bash -c '
		mount --bind "$1" /lib/modules || exit 1
		shift
		dkms build "$@" && dkms install "$@"' _ "$mods" \
		-m kfabric -v "$version" -k "$rel" --kernelsourcedir "$kdir" "${dk[@]}"
	local rc=$?
	[ -n "$made_libmod" ] && rmdir /lib/modules
	[ $rc -eq 0 ] || { tail -30 "$tree/kfabric/$version/build/make.log" 2>/dev/null; return 1; }
	dkms status -m kfabric "${dk[@]}" | tee "$work/dkms-status"
	grep -q "kfabric/$version, $rel, [^:]*: installed" "$work/dkms-status" || return 1
	for ko in kfabric kfi_tcp kfi_pingpong kfi_verbs; do
		[ -f "$mods/$rel/updates/dkms/$ko.ko" ] || { echo "$ko.ko not installed by dkms"; return 1; }
		cp "$mods/$rel/updates/dkms/$ko.ko" "$out/dkms/"
	done
	grep -q '^updates/dkms/kfi_tcp.ko: updates/dkms/kfabric.ko$' "$mods/$rel/modules.dep" || return 1
}

# BUILD_EXCLUSIVE_CONFIG: a kernel without CONFIG_RUST is skipped by dkms
# (exit 77, "not compatible"), not failed on
dkms_skips_kernel_without_rust() {
	local src=$work/dkms/src tree=$work/dkms/tree norust=$work/norust rc
	mkdir -p "$norust"
	grep -v '^CONFIG_RUST=' "$kdir/.config" >"$norust/.config"
	dkms build -m kfabric -v "$version" -k 6.12.0-norust --kernelsourcedir "$norust" \
		--sourcetree "$src" --dkmstree "$tree"
	rc=$?
	echo "dkms build exit $rc"
	[ $rc -eq 77 ]
}

result kbuild_tools_find_match kbuild_tools_find_match
result kbuild_rustc_mismatch_one_line kbuild_rustc_mismatch
result kbuild_rustc_given_mismatch_one_line kbuild_rustc_given_mismatch
result kbuild_bindgen_mismatch_one_line kbuild_bindgen_mismatch
result man_pages_cover_api man_pages_cover_api
result make_install_staged make_install_staged
result installed_headers_build_consumer installed_headers_build_consumer
result make_uninstall_staged make_uninstall_staged
result dkms_build_install dkms_build_install
result dkms_skips_kernel_without_rust dkms_skips_kernel_without_rust
