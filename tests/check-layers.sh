#!/bin/sh
# Layering check (docs/architecture.md): dependencies point one way.
#   policy -> (nothing but internal.h)
#   paths, session -> policy
#   profile -> paths, policy
#   compile -> profile, paths, policy
#   linux/darwin/windows -> compile, profile, paths, policy, core, and the
#       backend interface backend/backend.h only
#   backend (the table, detection) -> the OS backends
#   exec -> backend and everything below
# A file may never include a header of a layer above it.  A layer's posix/
# and win32/ subfolders (CMakeLists.txt: where a file builds) are the layer.
set -eu
root=$1
fail=0
check() { # layer, forbidden-regex
        for f in "$root"/src/"$1"/*.[ch] "$root"/src/"$1"/*/*.[ch]; do
                [ -e "$f" ] || continue
                if grep -nE "#include \"($2)/" "$f"; then
                        echo "layering: $f includes a higher layer ($2)" >&2
                        fail=1
                fi
        done
}
check core    'policy|paths|session|profile|compile|backend|linux|darwin|windows|exec|net'
check policy  'paths|session|profile|compile|backend|linux|darwin|windows|exec|net'
check paths   'session|profile|compile|backend|linux|darwin|windows|exec|net'
check session 'profile|compile|backend|linux|darwin|windows|exec|net'
check profile 'session|compile|backend|linux|darwin|windows|exec|net'
check compile 'session|backend|linux|darwin|windows|exec|net'
# net (the egress proxy) uses the portable layers below it; exec uses net.
check net     'session|compile|backend|linux|darwin|windows|exec'
# OS backends implement backend/backend.h (the interface) and never reach
# up into the table or the exec layer.
for os in linux darwin windows; do
        check "$os" 'exec|net'
        for f in "$root"/src/"$os"/*.[ch]; do
                [ -e "$f" ] || continue
                if grep -nE '#include "backend/' "$f" | grep -v '#include "backend/backend.h"'; then
                        echo "layering: $f includes backend/ beyond the interface" >&2
                        fail=1
                fi
        done
done
check backend 'exec|net'
# No portable layer includes an OS backend's header.
for l in core policy paths session profile compile net exec; do
        for f in "$root"/src/"$l"/*.[ch] "$root"/src/"$l"/*/*.[ch]; do
                [ -e "$f" ] || continue
                if grep -nE '#include "(linux|darwin|windows)/' "$f"; then
                        echo "layering: $f (portable) includes an OS backend header" >&2
                        fail=1
                fi
        done
done
# A layer folder's only subfolders are posix/ and win32/ (CMakeLists.txt).
for d in "$root"/src/*/*/; do
        [ -d "$d" ] || continue
        case $d in
        */src/windows/compat/ | */src/[a-z]*/posix/ | */src/[a-z]*/win32/) ;;
        *) echo "layering: $d is neither posix/ nor win32/ (CMakeLists.txt)" >&2; fail=1 ;;
        esac
done
# Every source file sits in a layer folder (no src/*.c outside them).
for f in "$root"/src/*.c; do
        [ -e "$f" ] || continue
        echo "layering: $f is outside every layer folder" >&2
        fail=1
done
# Bare, non-CLOEXEC fd creation is rejected in the library (docs/style.md).
if grep -rnE '\b(pipe|dup|accept|epoll_create|inotify_init)\(' "$root/src" --include=*.c; then
        echo "use the CLOEXEC variants (pipe2, F_DUPFD_CLOEXEC, accept4, ...)" >&2
        fail=1
fi
if grep -rnE '\bopen(at)?\([^;]*\)' "$root/src" --include=*.c | grep -v O_CLOEXEC; then
        echo "every open()/openat() in src/ passes O_CLOEXEC" >&2
        fail=1
fi
# strerror(3) is not thread-safe and hosts are threaded: sbx__strerror
# (src/core/internal.h) everywhere but in the core that implements it.
if grep -rnE '(^|[^A-Za-z0-9_])strerror(_r)?\(' "$root/src" --include=*.c --include=*.h |
        grep -v "^$root/src/core/" | grep -v 'strerror(3)'; then
        echo "use sbx__strerror(e) (thread-safe), not strerror()/strerror_r()" >&2
        fail=1
fi
exit $fail
