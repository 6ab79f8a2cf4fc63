#!/bin/sh
# Layering check (docs/architecture.md): dependencies point one way.
#   policy -> (nothing but internal.h)
#   paths, session -> policy
#   profile -> paths, policy
#   compile -> profile, paths, policy
#   linux/darwin/windows -> compile, paths, policy
# A file may never include a header of a layer above it.
set -eu
root=$1
fail=0
check() { # layer, forbidden-regex
        for f in "$root"/src/"$1"/*.[ch]; do
                [ -e "$f" ] || continue
                if grep -nE "#include \"($2)/" "$f"; then
                        echo "layering: $f includes a higher layer ($2)" >&2
                        fail=1
                fi
        done
}
check policy  'paths|session|profile|compile|linux|darwin|windows|exec|net'
check paths   'session|profile|compile|linux|darwin|windows|exec|net'
check session 'profile|compile|linux|darwin|windows|exec|net'
check profile 'session|compile|linux|darwin|windows|exec|net'
check compile 'session|linux|darwin|windows|exec|net'
# Bare, non-CLOEXEC fd creation is rejected in the library (STYLE.md 25).
if grep -rnE '\b(pipe|dup|accept|epoll_create|inotify_init)\(' "$root/src" --include=*.c; then
        echo "use the CLOEXEC variants (pipe2, F_DUPFD_CLOEXEC, accept4, ...)" >&2
        fail=1
fi
if grep -rnE '\bopen(at)?\([^;]*\)' "$root/src" --include=*.c | grep -v O_CLOEXEC; then
        echo "every open()/openat() in src/ passes O_CLOEXEC" >&2
        fail=1
fi
exit $fail
