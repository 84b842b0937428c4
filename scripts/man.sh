#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make man: section 3 man pages from the kernel-doc of include/*.h (which
# documents every exported kfi_* call at its prototype, every static inline
# wrapper and every type), split one page per entry, like libfabric's:
#   OUTDIR/man3/<function>.3        calls, inline wrappers, macros
#   OUTDIR/man3/<type>.3type        struct, union, enum, typedef
# Each page's synopsis names the header to include.
#
#   man.sh [KERNELDOC] VERSION OUTDIR
#
# KERNELDOC is the kernel's scripts/kernel-doc (a Perl script); empty:
# the one of the cached test kernel, of an unpacked kernel source in
# /usr/src, or of the running kernel's build tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
kd=${1:-}
version=${2:?version}
out=${3:?output directory}

if [ -z "$kd" ]; then
	for c in "${KFABRIC_CACHE:-/var/cache/kfabric}"/kernel/*/scripts/kernel-doc \
		/usr/src/linux-*/scripts/kernel-doc "/lib/modules/$(uname -r)/build/scripts/kernel-doc"; do
		if [ -r "$c" ]; then
			kd=$c
			break
		fi
	done
fi
if [ -z "$kd" ] || [ ! -r "$kd" ]; then
	echo "kfabric: make man needs the kernel's scripts/kernel-doc (${kd:-none found}): set KERNELDOC=/path/to/linux/scripts/kernel-doc" >&2
	exit 1
fi

# The pages' date: the last commit's, so that the same source gives the
# same pages (kernel-doc reads it from KBUILD_BUILD_TIMESTAMP).
if [ -z "${KBUILD_BUILD_TIMESTAMP:-}" ]; then
	KBUILD_BUILD_TIMESTAMP=$(git -C "$top" log -1 --format=%cD 2>/dev/null || date -R)
	export KBUILD_BUILD_TIMESTAMP
fi

rm -rf "$out/man3"
mkdir -p "$out/man3"
n=0
for h in "$top"/include/*.h; do
	hdr=$(basename "$h")
	# kernel-doc's stream: ".TH" starts an entry, ".SH NAME" and the line
	# after it say what it documents ("fn \- ...", "struct s \- ...");
	# DOC: sections (no such name) are left out.
	perl "$kd" -man "$h" | awk -v dir="$out/man3" -v hdr="$hdr" -v ver="$version" '
		function flush() {
			if (file != "" && nlines > 0) {
				for (i = 1; i <= nlines; i++)
					print buf[i] > file
				close(file)
				count++
			}
			file = ""
			nlines = 0
		}
		/^\.TH / {
			flush()
			# the date is the fourth quoted field
			split($0, q, "\"")
			date = q[8]
			state = "th"
			next
		}
		state == "th" && /^\.SH NAME/ { state = "name"; next }
		state == "name" {
			kind = $1
			if (kind == "struct" || kind == "union" || kind == "enum" || kind == "typedef") {
				name = $2; sect = "3type"
			} else if ($2 == "\\-") {
				name = $1; sect = "3"
			} else {
				name = ""
			}
			if (name ~ /^[A-Za-z_][A-Za-z0-9_]*$/) {
				file = dir "/" name "." sect
				buf[++nlines] = ".TH \"" name "\" " sect " \"" date "\" \"kfabric " ver "\" \"kfabric Programmer'"'"'s Manual\""
				buf[++nlines] = ".SH NAME"
				buf[++nlines] = $0
			}
			state = "body"
			next
		}
		state == "body" && file != "" {
			buf[++nlines] = $0
			if ($0 ~ /^\.SH SYNOPSIS/) {
				buf[++nlines] = ".B #include <" hdr ">"
				buf[++nlines] = ".sp"
			}
		}
		END { flush(); print count + 0 }
	' >"$out/.count.$hdr"
	n=$((n + $(cat "$out/.count.$hdr")))
	rm -f "$out/.count.$hdr"
done
echo "man: $n pages in $out/man3 (kernel-doc: $kd)"
