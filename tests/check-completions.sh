#!/bin/sh
# The shell completions offer every option `sandbox-run --help` lists, and
# the bash one completes: a new option without completions fails here.
set -eu
run=$1 dir=$2
opts=$("$run" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
fail=0
for f in "$dir/sandbox-run.bash" "$dir/_sandbox-run" "$dir/sandbox-run.fish"; do
        for o in $opts; do
                case $f in
                *.fish) pat="-l ${o#--}" ;;
                *) pat="$o" ;;
                esac
                if ! grep -q -- "$pat\b" "$f"; then
                        echo "completions: $f does not offer $o" >&2
                        fail=1
                fi
        done
done
if command -v bash >/dev/null 2>&1; then
        got=$(bash -c '. "$1"; COMP_WORDS=(sandbox-run --net); COMP_CWORD=1; _sandbox_run
                       printf "%s\n" "${COMPREPLY[@]}"
                       COMP_WORDS=(sandbox-run --network a); COMP_CWORD=2; _sandbox_run
                       printf "%s\n" "${COMPREPLY[@]}"' bash "$dir/sandbox-run.bash")
        if [ "$got" != "$(printf -- '--network\nallow')" ]; then
                echo "completions: bash completed '$got'" >&2
                fail=1
        fi
fi
[ $fail -eq 0 ] && echo "completions: $(echo "$opts" | wc -l) options offered by bash, zsh and fish"
exit $fail
