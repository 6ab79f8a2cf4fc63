#!/bin/sh
# Call check (docs/architecture.md): check-layers.sh looks at includes; this
# looks at the calls the compiler really emitted.  nm lists, for every object
# of the library, the global symbols it defines and the ones it uses; a file
# that uses a symbol another file defines depends on that file.
#   check-calls.sh ROOT OBJECT...     (NM=... for another toolchain's nm)
# It fails on
#   (a) a call from a folder into one it may not call (the table below: down
#       the layers only; the OS rows call no other row, not backend/, not
#       exec/; exec calls the OS rows through the backend table only);
#   (b) a cycle between files or between folders;
# except for the dependencies tests/layers-allow.txt lists, each with its
# reason.  An entry whose dependency is gone, or neither goes up nor closes a
# cycle any more, fails too: delete it.
# Every failure is one line naming both files (or folders) and the symbols.
set -eu
[ $# -gt 1 ] || { echo "usage: check-calls.sh ROOT OBJECT..." >&2; exit 2; }
root=$1
shift
allow=$root/tests/layers-allow.txt
[ -r "$allow" ] || { echo "calls: $allow is missing" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "path/src/linux/ladder.c.o: sbx__x T 0 10" for every symbol of every object.
"${NM:-nm}" -A -P "$@" >"$tmp/nm"
LC_ALL=C sort "$tmp/nm" >"$tmp/sorted"
LC_ALL=C awk -v root="$root" -v allow="$allow" '
# The folders each folder may call (besides itself).
BEGIN {
        may["core"] = ""
        may["policy"] = "core"
        may["paths"] = "core policy"
        may["session"] = "core policy paths"
        may["profile"] = "core policy paths"
        may["compile"] = "core policy paths profile"
        may["net"] = "core policy paths profile"
        may["linux"] = may["darwin"] = may["windows"] = "core policy paths profile compile"
        may["backend"] = "core policy paths profile compile linux darwin windows"
        may["exec"] = "core policy paths session profile compile net backend"
        for (f in may) {
                n = split(may[f], m, " ")
                for (i = 1; i <= n; i++)
                        ok[f, m[i]] = 1
        }
        fail = 0
}
function bad(msg) {
        print "calls: " msg
        fail = 1
}
function folder(file,  p) {
        split(file, p, "/")
        return p[2]
}
{
        i = match($0, /\.o(bj)?: /)
        if (i == 0)
                next
        obj = substr($0, 1, i - 1)
        n = split(substr($0, i + RLENGTH), w, " ")
        # src/<folder>/<file>.c, from the last /src/ of the object path
        file = obj
        while ((j = index(file, "/src/")) > 0)
                file = substr(file, j + 1)
        if (!(file in seen)) {
                seen[file] = 1
                files[++nfiles] = file
                if (file !~ /^src\/[a-z]+\/./ || !(folder(file) in may))
                        bad(file " is in no layer folder of this check")
        }
        if (n < 2)
                next
        sym = w[1]
        type = w[2]
        if (type == "U") {
                uses[++nuses] = file " " sym
        } else if (type ~ /^[TDBRCGSVW]$/ && !(sym in def)) {
                def[sym] = file
        }
}
END {
        # The file graph: e[a, b] = the symbols a uses from b.
        for (k = 1; k <= nuses; k++) {
                split(uses[k], u, " ")
                if (!(u[2] in def) || def[u[2]] == u[1])
                        continue
                a = u[1]
                b = def[u[2]]
                if (!((a, b) in e)) {
                        e[a, b] = u[2]
                } else {
                        e[a, b] = e[a, b] " " u[2]
                }
        }
        # The allowed dependencies: "FROM -> TO reason", FROM and TO files.
        line = 0
        while ((getline l < allow) > 0) {
                line++
                if (l ~ /^[ \t]*(#|$)/)
                        continue
                n = split(l, w, " ")
                where = allow ":" line ": "
                if (n < 4 || w[2] != "->") {
                        bad(where "not \"FROM.c -> TO.c reason\": " l)
                        continue
                }
                if (!(w[1] in seen) || !(w[3] in seen)) {
                        # not built in this configuration, or not a file
                        for (i = 1; i <= 3; i += 2)
                                if ((getline junk < (root "/" w[i])) < 0)
                                        bad(where "no file " w[i])
                                else
                                        close(root "/" w[i])
                        continue
                }
                if (!((w[1], w[3]) in e)) {
                        bad(where w[1] " uses nothing of " w[3] ": delete the entry")
                        continue
                }
                allowed[w[1], w[3]] = where
        }
        close(allow)
        # (a) calls into a folder this one may not call
        for (x = 1; x <= nfiles; x++) {
                a = files[x]
                for (y = 1; y <= nfiles; y++) {
                        b = files[y]
                        if (!((a, b) in e) || ((a, b) in allowed))
                                continue
                        fa = folder(a)
                        fb = folder(b)
                        if (fa == fb)
                                continue
                        if ((fa, fb) in ok)
                                continue
                        bad(a " (" fa "/) calls " b " (" fb "/), a folder " fa \
                            "/ may not call [" e[a, b] "]; " fa "/ may call: " may[fa])
                }
        }
        # The folder graph from the file graph (allowed entries left out).
        for (x = 1; x <= nfiles; x++) {
                a = files[x]
                fa = folder(a)
                if (!(fa in fseen)) {
                        fseen[fa] = 1
                        folders[++nfolders] = fa
                }
                for (y = 1; y <= nfiles; y++) {
                        b = files[y]
                        fb = folder(b)
                        if (fa == fb || !((a, b) in e) || ((a, b) in allowed))
                                continue
                        via = a " -> " b " [" e[a, b] "]"
                        if ((fa, fb) in fe)
                                fe[fa, fb] = fe[fa, fb] ", " via
                        else
                                fe[fa, fb] = via
                }
        }
        # (b) cycles: strongly connected sets of two or more files (folders)
        for (x = 1; x <= nfiles; x++)
                for (y = 1; y <= nfiles; y++)
                        if (files[x] != files[y] && ((files[x], files[y]) in e) &&
                            !((files[x], files[y]) in allowed))
                                fadj[files[x]] = fadj[files[x]] " " files[y]
        reach(files, nfiles, fadj, fr)
        cycles(files, nfiles, fr, e, "files")
        for (x = 1; x <= nfolders; x++)
                for (y = 1; y <= nfolders; y++)
                        if ((folders[x], folders[y]) in fe)
                                dadj[folders[x]] = dadj[folders[x]] " " folders[y]
        reach(folders, nfolders, dadj, dr)
        cycles(folders, nfolders, dr, fe, "folders")
        # An entry must still be needed: an upward call, or one that closes a
        # cycle on its own.
        for (x = 1; x <= nfiles; x++)
                for (y = 1; y <= nfiles; y++) {
                        a = files[x]
                        b = files[y]
                        if (!((a, b) in allowed) || ((b, a) in fr))
                                continue
                        if (folder(a) != folder(b) && !((folder(a), folder(b)) in ok))
                                continue
                        bad(allowed[a, b] a " -> " b " is neither an upward call nor in a " \
                            "cycle: delete the entry")
                }
        if (fail)
                print "calls: move the function to a file both may call, or list the " \
                      "dependency in tests/layers-allow.txt with its reason"
        exit fail
}
# r[s, t] for every node t that s reaches along adj (s itself only on a cycle).
function reach(node, nn, adj, r,  x, s, v, sp, st, n, a, i) {
        for (x = 1; x <= nn; x++) {
                s = node[x]
                sp = 0
                st[++sp] = s
                while (sp > 0) {
                        v = st[sp--]
                        n = split(adj[v], a, " ")
                        for (i = 1; i <= n; i++)
                                if (!((s, a[i]) in r)) {
                                        r[s, a[i]] = 1
                                        st[++sp] = a[i]
                                }
                }
        }
}
# Report every set of nodes that reach each other, with the edges inside it.
function cycles(node, nn, r, lab, what,  x, y, v, w, n, a, i, in_c, c, msg, sep) {
        for (x = 1; x <= nn; x++) {
                v = node[x]
                if ((v in in_c) || !((v, v) in r))
                        continue
                c = ""
                for (y = 1; y <= nn; y++) {
                        w = node[y]
                        if (((v, w) in r) && ((w, v) in r)) {
                                in_c[w] = 1
                                c = c " " w
                        }
                }
                # the edges inside the set; for folders the files behind
                # each edge that goes up (the ones to remove)
                msg = "cycle between " what ":" c ":"
                sep = " "
                n = split(c, a, " ")
                for (i = 1; i <= n; i++)
                        for (y = 1; y <= n; y++) {
                                if (a[i] == a[y] || !((a[i], a[y]) in lab))
                                        continue
                                if (what == "files" && ((a[i], a[y]) in allowed))
                                        continue
                                if (what == "files")
                                        msg = msg sep a[i] " -> " a[y] " [" lab[a[i], a[y]] "]"
                                else if ((a[i], a[y]) in ok)
                                        msg = msg sep a[i] "/ -> " a[y] "/"
                                else
                                        msg = msg sep a[i] "/ -> " a[y] "/ (" lab[a[i], a[y]] ")"
                                sep = "; "
                        }
                bad(msg)
        }
}
' "$tmp/sorted"
