#!/bin/sh
# Compare the dynamic symbols the library exports with the functions the
# public header declares with SBX_API.  Any difference fails.
set -eu
lib=$1 header=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ {print $3}' | sed 's/@.*//' | sort -u > "$tmp/exported"
# Declarations start at the beginning of a line with "SBX_API "; the name is
# the identifier right before the first "(" on that line.
grep -E '^SBX_API ' "$header" > "$tmp/lines"
sed -nE 's/^SBX_API [^(]*[ *](sbx_[a-z0-9_]+)\(.*/\1/p' "$tmp/lines" | sort -u > "$tmp/declared"
if [ "$(wc -l < "$tmp/lines")" -ne "$(wc -l < "$tmp/declared")" ]; then
        echo "could not parse every SBX_API declaration in $header" >&2
        exit 1
fi
if ! diff -u "$tmp/declared" "$tmp/exported"; then
        echo "exported symbols differ from the SBX_API declarations in sandbox.h" >&2
        exit 1
fi
echo "exports: $(wc -l < "$tmp/exported") symbols match sandbox.h"
