#!/usr/bin/env bash
# Builds the vendored Dynomite (../shared/vendor/dynomite-*.tar.gz, see its README.md) into a cache
# keyed by the tarball's sha256, and prints the binary's path. Skips the build when the cached binary
# exists. Tests find the binary with test/support/dynomite-cluster.ts (same cache layout), or through
# DYNOMITE_BIN.
#
#   scripts/build-dynomite.sh [tarball]      (default: $DYNOMITE_TARBALL or ../shared/vendor/dynomite-2046b05.tar.gz)
#   DYNOMITE_CACHE=dir                        (default: .cache/dynomite under the repository)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tarball="${1:-${DYNOMITE_TARBALL:-$root/../shared/vendor/dynomite-2046b05.tar.gz}}"
cache="${DYNOMITE_CACHE:-$root/.cache/dynomite}"

if [ ! -f "$tarball" ]; then
  echo "build-dynomite: no tarball at $tarball" >&2
  exit 2
fi
sha="$(sha256sum "$tarball" | cut -d' ' -f1)"
dest="$cache/$sha"
if [ -x "$dest/dynomite" ]; then
  echo "build-dynomite: cached $dest/dynomite" >&2
  echo "$dest/dynomite"
  exit 0
fi

for tool in autoreconf make gcc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build-dynomite: $tool is missing (apt-get install autoconf automake libtool libssl-dev build-essential)" >&2; exit 2; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/dynomite-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
tar xzf "$tarball" -C "$work"
src="$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n1)"
log="$work/build.log"
echo "build-dynomite: building $(basename "$tarball") ($sha) in $src" >&2
start=$SECONDS
(
  cd "$src"
  autoreconf -fvi
  ./configure CFLAGS='-g -O2 -fcommon'   # without -fcommon gcc 12 fails to link dynomite-hash-tool
  make -j"${DYNOMITE_JOBS:-2}"
) >"$log" 2>&1 || { tail -n 40 "$log" >&2; echo "build-dynomite: build failed" >&2; exit 1; }

mkdir -p "$dest"
# Copy then rename, so a concurrent reader never sees a half-written binary.
cp "$src/src/dynomite" "$dest/dynomite.tmp.$$"
mv "$dest/dynomite.tmp.$$" "$dest/dynomite"
echo "build-dynomite: built in $((SECONDS - start)) s: $dest/dynomite" >&2
echo "$dest/dynomite"
