#!/bin/sh
# Function length check: no function in src/ is longer than 150 lines
# (from the line that names it to its closing brace), except the ones in
# tests/fn-length-allow.txt, which may not grow past the length recorded
# there.  The allowlist only shrinks: an entry whose function is gone or
# now fits in 150 lines fails too, so the entry gets deleted with the split.
#   check-fn-length.sh ROOT [ALLOWLIST]
# It relies on the house style (docs/style.md): a function definition
# starts at column 0, its opening brace is a line of its own, "{", and its
# closing brace is the next line that starts with "}".  A definition
# written otherwise ("int f(void) {") fails the check instead of escaping it.
set -eu
root=$(cd "$1" && pwd)
allow=${2:-$root/tests/fn-length-allow.txt}
case $allow in /*) ;; *) allow=$PWD/$allow ;; esac
[ -r "$allow" ] || { echo "fn-length: cannot read $allow" >&2; exit 2; }
cd "$root"
# No blank or odd characters in src/ file names: the list splits on spaces.
files=$(find src -name '*.[ch]' | LC_ALL=C sort)
# shellcheck disable=SC2086
awk -v max=150 -v allow="$allow" '
BEGIN {
        fail = 0
        while ((getline line < allow) > 0) {
                if (line ~ /^[[:space:]]*(#|$)/)
                        continue
                split(line, f, /[[:space:]]+/)
                if (f[3] !~ /^[0-9]+$/) {
                        printf "fn-length: %s: bad line: %s\n", allow, line > "/dev/stderr"
                        fail = 1
                        continue
                }
                key = f[1] " " f[2]
                limit[key] = f[3]
                seen[key] = 0
        }
        close(allow)
}
FNR == 1 {
        if (in_fn) {
                printf "fn-length: %s: ends inside %s\n", prev, name > "/dev/stderr"
                fail = 1
        }
        head = ""; head_line = 0; in_fn = 0; prev = FILENAME
}
in_fn {
        if ($0 == "{") {
                printf "fn-length: %s:%d: \"{\" at column 0 inside %s (style: one per function)\n",
                       FILENAME, FNR, name > "/dev/stderr"
                fail = 1
        } else if ($0 ~ /^}/) {
                in_fn = 0
                measure(FILENAME, name, FNR - start + 1, start)
        }
        next
}
# A definition header: an identifier at column 0 through the line before "{".
/^[A-Za-z_]/ { head = $0; head_line = FNR; if ($0 ~ /\)[[:space:]]*\{[[:space:]]*$/ && $0 !~ /=/) style(FILENAME, FNR); next }
/^[[:space:]]/ && head_line { head = head " " $0; if ($0 ~ /\)[[:space:]]*\{[[:space:]]*$/ && head !~ /[=;]/) style(FILENAME, FNR); next }
$0 == "{" {
        if (!head_line) {
                printf "fn-length: %s:%d: \"{\" with no function header before it\n",
                       FILENAME, FNR > "/dev/stderr"
                fail = 1
                next
        }
        h = head
        gsub(/__attribute__[[:space:]]*\(\([^)]*\)\)/, "", h)
        if (!match(h, /[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(/)) {
                printf "fn-length: %s:%d: cannot find the function name in \"%s\"\n",
                       FILENAME, FNR, head > "/dev/stderr"
                fail = 1
                next
        }
        name = substr(h, RSTART, RLENGTH)
        sub(/[[:space:]]*\($/, "", name)
        start = head_line
        in_fn = 1
        head = ""; head_line = 0
        next
}
{ head = ""; head_line = 0 }
function style(file, line) {
        printf "fn-length: %s:%d: a function whose \"{\" is not a line of its own\n",
               file, line > "/dev/stderr"
        fail = 1
}
function measure(file, fn, n, line,    key) {
        key = file " " fn
        if (key in limit) {
                seen[key] = 1
                if (n > limit[key]) {
                        printf "fn-length: %s:%d: %s has %d lines, more than the %d it is allowed (%s)\n",
                               file, line, fn, n, limit[key], allow > "/dev/stderr"
                        fail = 1
                } else if (n <= max) {
                        printf "fn-length: %s:%d: %s has %d lines now: delete its line in %s\n",
                               file, line, fn, n, allow > "/dev/stderr"
                        fail = 1
                }
        } else if (n > max) {
                printf "fn-length: %s:%d: %s has %d lines (at most %d; split it into helpers)\n",
                       file, line, fn, n, max > "/dev/stderr"
                fail = 1
        }
}
END {
        if (in_fn) {
                printf "fn-length: %s: ends inside %s\n", FILENAME, name > "/dev/stderr"
                fail = 1
        }
        for (key in seen)
                if (!seen[key]) {
                        printf "fn-length: %s: no function \"%s\" in src/ (delete the line)\n",
                               allow, key > "/dev/stderr"
                        fail = 1
                }
        exit fail
}' $files
