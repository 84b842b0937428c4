#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make install / make uninstall / make dkms-src (see the Makefile).
#
#   install.sh install KDIR DESTDIR SRCDIR MANDIR BINDIR "MODULES_INSTALL CMD" KO...
#   install.sh uninstall "" DESTDIR SRCDIR MANDIR
#   install.sh dkms-src "" DESTDIR DKMS_SRC_DIR
#
# install: kbuild's modules_install of the built modules into
# DESTDIR/lib/modules/<KDIR's release>/extra (kbuild runs depmod), the
# headers into DESTDIR/SRCDIR/include, Module.symvers into DESTDIR/SRCDIR,
# the man pages (man/, from make man) into DESTDIR/MANDIR/man3, the
# tools (tools/: kfi_info) into DESTDIR/BINDIR. Every
# file installed is appended to DESTDIR/SRCDIR/installed-files (paths
# without DESTDIR), which uninstall reads: it removes exactly those
# files, the directories they leave empty, and runs depmod again for each
# kernel release it removed modules of.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
mode=$1
kdir=$2
destdir=${3:-}
srcdir=$4
cd "$top"

manifest=$destdir$srcdir/installed-files

record() { # record PATH...: PATHs (without DESTDIR) are installed files
	printf '%s\n' "$@" >>"$manifest"
	sort -u -o "$manifest" "$manifest"
}

case $mode in
install)
	mandir=$5
	bindir=$6
	modinst=$7
	shift 7
	rel=$(cat "$kdir/include/config/kernel.release")
	mkdir -p "$destdir$srcdir/include" "$destdir$mandir/man3"
	: >>"$manifest"
	# kbuild installs what modules.order lists (the build just made holds
	# no test module) under extra/ as they lie in the tree (extra/rust/
	# kfabric.ko ...), signing or compressing them as the kernel's config
	# says, and runs depmod -b DESTDIR (in a staging DESTDIR, depmod misses
	# the kernel's own lists: said once here, not three times)
	$modinst INSTALL_MOD_PATH="$destdir" 2>&1 >/dev/null |
		grep -v "depmod: WARNING: could not open modules\." >&2 || true
	for ko in "$@"; do
		f=$(cd "$destdir/" && find "lib/modules/$rel/extra" -name "$(basename "$ko")*" | head -1)
		[ -n "$f" ] || { echo "install: $(basename "$ko") was not installed" >&2; exit 1; }
		record "/$f"
	done
	[ -z "$destdir" ] || [ -e "$destdir/lib/modules/$rel/modules.builtin" ] ||
		echo "install: depmod ran on $destdir/lib/modules/$rel alone (no modules.builtin there)"
	for h in include/*.h; do
		install -m 0644 "$h" "$destdir$srcdir/include/"
		record "$srcdir/include/$(basename "$h")"
	done
	install -m 0644 Module.symvers "$destdir$srcdir/Module.symvers"
	record "$srcdir/Module.symvers"
	for m in man/man3/*; do
		install -m 0644 "$m" "$destdir$mandir/man3/"
		record "$mandir/man3/$(basename "$m")"
	done
	mkdir -p "$destdir$bindir"
	for t in tools/*; do
		[ -f "$t" ] || continue	# (e.g. a __pycache__ left by a run)
		install -m 0755 "$t" "$destdir$bindir/"
		record "$bindir/$(basename "$t")"
	done
	record "$srcdir/installed-files"
	echo "install: modules in $destdir/lib/modules/$rel/extra," \
		"headers and Module.symvers in $destdir$srcdir," \
		"$(ls man/man3 | wc -l) man pages in $destdir$mandir/man3," \
		"tools in $destdir$bindir"
	;;
uninstall)
	if [ ! -r "$manifest" ]; then
		echo "uninstall: nothing to do ($manifest does not exist)"
		exit 0
	fi
	releases=$(sed -n 's|^/lib/modules/\([^/]*\)/extra/.*|\1|p' "$manifest" | sort -u)
	dirs=$(while read -r f; do dirname "$f"; done <"$manifest" | sort -u -r)
	n=0
	while read -r f; do
		[ -n "$f" ] || continue
		rm -f "$destdir$f"
		n=$((n + 1))
	done <"$manifest"
	# the directories install made and left empty now (deepest first)
	for d in $dirs; do
		rmdir -p --ignore-fail-on-non-empty "$destdir$d" 2>/dev/null || true
	done
	for rel in $releases; do
		if [ -d "$destdir/lib/modules/$rel" ]; then
			{ depmod ${destdir:+-b "$destdir"} -a "$rel" 2>&1 ||
				echo "uninstall: depmod $rel failed"; } |
				grep -v "depmod: WARNING: could not open modules\." >&2 || true
		fi
	done
	echo "uninstall: $n files removed"
	;;
dkms-src)
	dst=$destdir$srcdir
	rm -rf "$dst"
	mkdir -p "$dst"
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		# (a file deleted but not yet committed is left out)
		git -C "$top" ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar -C "$top" --null -T - -cf - | tar -C "$dst" -xf -
	else
		tar -C "$top" --exclude='./.*' --exclude=./target --exclude=./man \
			-cf - . | tar -C "$dst" -xf -
		make -s -C "$dst" clean-objs
	fi
	# what the DKMS build needs is there
	for f in dkms.conf Makefile Kbuild rust/Kbuild include/kfabric.h; do
		[ -e "$dst/$f" ] || { echo "dkms-src: $f missing in $dst" >&2; exit 1; }
	done
	echo "dkms-src: $dst (then: dkms install kfabric/$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf))"
	;;
*)
	echo "install.sh: unknown mode $mode" >&2
	exit 1
	;;
esac
