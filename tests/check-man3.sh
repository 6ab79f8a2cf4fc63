#!/bin/sh
# The committed section-3 pages are what scripts/gen-man3 makes from the
# header now: a changed comment or a new function without its page fails.
set -eu
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$root/scripts/gen-man3" "$root/include/sandbox.h" "$tmp" >/dev/null
if ! diff -r "$tmp" "$root/man/man3" >/dev/null; then
        diff -r "$tmp" "$root/man/man3" | head -20 >&2
        echo "man3: the pages are stale; run scripts/gen-man3 and commit man/man3" >&2
        exit 1
fi
echo "man3: $(ls "$tmp" | wc -l) pages match include/sandbox.h"
