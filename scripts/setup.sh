#!/usr/bin/env bash
# Install everything the project needs on a fresh Debian 12 machine (root).
# Idempotent; prints nothing when nothing is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=env.sh
. "$here/env.sh"

log() { echo "setup: $*" >&2; }

missing=()
for p in $APT_PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || true
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$KFABRIC_CACHE"
# (outputs are captured before comparing: with pipefail, `cmd | grep -q` can
# fail when grep exits before cmd has finished writing)
have=$("$BINDGEN" --version 2>/dev/null) || true
if [ "$have" != "bindgen $BINDGEN_VERSION" ]; then
	log "installing bindgen-cli $BINDGEN_VERSION"
	cargo install --quiet --locked --root "$KFABRIC_CACHE/tools" \
		--version "$BINDGEN_VERSION" bindgen-cli
fi

have=$("$KFABRIC_CACHE/venv/bin/python3" -m pip show virtme-ng 2>/dev/null) || true
if ! grep -qx "Version: $VIRTME_NG_VERSION" <<<"$have"; then
	log "installing virtme-ng $VIRTME_NG_VERSION"
	python3 -m venv "$KFABRIC_CACHE/venv"
	"$KFABRIC_CACHE/venv/bin/python3" -m pip install -q --disable-pip-version-check \
		"virtme-ng==$VIRTME_NG_VERSION"
fi
