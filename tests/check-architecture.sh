#!/bin/sh
# Architecture map check (docs/architecture.md, "Files"): every source file
# under src/ and tools/ (.c, .h, .map) is listed there, as a bullet naming
# its full path, and every path listed exists.  A bullet naming a folder
# (ending in /) covers the files below it.  Every docs/*.md, README.md and
# CONTRIBUTING.md path under src/ names a file that exists.
#   check-architecture.sh ROOT
set -eu
root=${1:?usage: check-architecture.sh ROOT}
cd "$root"
doc=docs/architecture.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# The paths the bullets of the Files section name.
sed -n '/^## Files$/,/^## /p' "$doc" | grep '^- ' |
        grep -oE '`(src|tools)/[^`]*`' | tr -d '`' | LC_ALL=C sort -u >"$tmp/listed"
find src tools -type f \( -name '*.c' -o -name '*.h' -o -name '*.map' \) |
        LC_ALL=C sort -u >"$tmp/tree"
while read -r f; do
        case $f in
        */) [ -d "$f" ] || { echo "architecture: $doc lists $f, which is not a folder"; fail=1; } ;;
        *) [ -f "$f" ] || { echo "architecture: $doc lists $f, which does not exist"; fail=1; } ;;
        esac
done <"$tmp/listed"
while read -r f; do
        grep -qxF "$f" "$tmp/listed" && continue
        covered=0
        while read -r d; do
                case $d in */) case $f in "$d"*) covered=1 ;; esac ;; esac
        done <"$tmp/listed"
        [ "$covered" = 1 ] ||
                { echo "architecture: $f is not in $doc (\"Files\", under its folder)"; fail=1; }
done <"$tmp/tree"
# Every file path under src/ that a page names exists.
for page in docs/*.md README.md CONTRIBUTING.md; do
        [ -f "$page" ] || continue
        grep -noE '\bsrc/[A-Za-z0-9_/.-]+\.(c|h|map)\b' "$page" | while IFS=: read -r line p; do
                [ -e "$p" ] || echo "architecture: $page:$line names $p, which does not exist"
        done
done >"$tmp/stale"
if [ -s "$tmp/stale" ]; then
        cat "$tmp/stale"
        fail=1
fi
[ "$fail" = 0 ] && echo "architecture: $(wc -l <"$tmp/tree") files, all in $doc"
exit "$fail"
