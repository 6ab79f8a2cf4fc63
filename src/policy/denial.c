/*
 * denial.c - what a line of a failed command's stderr says about a
 * possible sandbox denial, and the class-naming model-facing marker.
 * Pure and portable: no OS calls, no allocation.  Whether the sandbox
 * really caused it needs the plan the command ran under, which this layer
 * does not know: sbx_plan_denial (src/exec/denial.c) asks the plan about
 * the path and the network decision found here.  docs/policy.md has the
 * rules.
 *
 * Matching is ASCII case-insensitive (Go prints "permission denied", the C
 * library "Permission denied") and never depends on the locale; a line is
 * raw bytes of a known length.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "policy/policy_internal.h"

/* ------------------------------------------------------------- marker */

const char *sbx_denial_class_name(int32_t denial_class)
{
        switch (denial_class) {
        case SBX_DENIAL_NONE:
                return "none";
        case SBX_DENIAL_FILE_WRITE:
                return "file-write";
        case SBX_DENIAL_FILE_READ:
                return "file-read";
        case SBX_DENIAL_NETWORK:
                return "network";
        case SBX_DENIAL_COMMAND:
                return "command";
        default:
                return "invalid";
        }
}

/* What the marker says was denied; NULL for NONE and unknown classes. */
static const char *marker_what(int32_t denial_class)
{
        switch (denial_class) {
        case SBX_DENIAL_FILE_WRITE:
                return "file write";
        case SBX_DENIAL_FILE_READ:
                return "file read";
        case SBX_DENIAL_NETWORK:
                return "network access";
        case SBX_DENIAL_COMMAND:
                return "command execution";
        default:
                return NULL;
        }
}

sbx_code sbx_denial_class_marker(int32_t denial_class, int32_t mode, char *buf, size_t buflen,
                                 sbx_error *err)
{
        static const char fn[] = "sbx_denial_class_marker";
        static const char head[] = "[sandbox: ", mid[] = " denied under ", tail[] = " mode]";
        const char *what = marker_what(denial_class), *name;
        size_t nw, nn, need, o = 0;

        if (what == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: denial_class %d is not a denial "
                                 "class (SBX_DENIAL_NONE has no marker)", fn, (int) denial_class);
        if (!sbx_mode_is_valid(mode))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: mode %d is not a valid mode", fn,
                                 (int) mode);
        if (buf == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: buf is NULL", fn);
        name = sbx_mode_name(mode);
        nw = strlen(what);
        nn = strlen(name);
        need = (sizeof(head) - 1) + nw + (sizeof(mid) - 1) + nn + (sizeof(tail) - 1) + 1;
        if (buflen < need)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: buflen %zu is too small, %zu bytes "
                                 "needed", fn, buflen, need);
        memcpy(buf + o, head, sizeof(head) - 1);
        o += sizeof(head) - 1;
        memcpy(buf + o, what, nw);
        o += nw;
        memcpy(buf + o, mid, sizeof(mid) - 1);
        o += sizeof(mid) - 1;
        memcpy(buf + o, name, nn);
        o += nn;
        memcpy(buf + o, tail, sizeof(tail));    /* with the NUL */
        return SBX_OK;
}

/* --------------------------------------------------------- line scan */

/* Case-insensitive search for needle in s[0..len); offset or -1. */
static long find(const char *s, size_t len, const char *needle)
{
        size_t n = strlen(needle), i, k;

        if (n == 0 || n > len)
                return -1;
        for (i = 0; i + n <= len; i++) {
                for (k = 0; k < n; k++)
                        if (sbx__ascii_lower((unsigned char) s[i + k]) !=
                            sbx__ascii_lower((unsigned char) needle[k]))
                                break;
                if (k == n)
                        return (long) i;
        }
        return -1;
}

/* 1 if any of the phrases occurs in s[0..len) outside the span
 * [skip, skip + skip_len). */
static int has_any(const char *s, size_t len, size_t skip, size_t skip_len,
                   const char *const *phrases)
{
        size_t i;

        for (i = 0; phrases[i] != NULL; i++) {
                if (find(s, skip, phrases[i]) >= 0)
                        return 1;
                if (skip + skip_len < len &&
                    find(s + skip + skip_len, len - skip - skip_len, phrases[i]) >= 0)
                        return 1;
        }
        return 0;
}

/* The errno texts of the C library (strerror) and of Go (lower case). */
static const struct {
        const char *text;
        int         err;
} errno_texts[] = {
        { "read-only file system", SBX__DL_EROFS },
        { "permission denied", SBX__DL_EACCES },
        { "operation not permitted", SBX__DL_EPERM },
        { "no such file or directory", SBX__DL_ENOENT },
};

/* Failures that mean "no network here" when the plan denies it: refused
 * and unreachable connections and failed name lookups (glibc's gai
 * texts, curl's, Go's). */
static const char *const net_texts[] = {
        "connection refused", "network is unreachable", "network unreachable",
        "no route to host", "temporary failure in name resolution",
        "name or service not known", "no address associated with hostname",
        "could not resolve host", "couldn't resolve host", "failed to resolve",
        "couldn't connect to server", "could not connect to", "failed to connect to",
        "name resolution", NULL,
};

/* Words of a line about a socket, for EACCES/EPERM without a path. */
static const char *const net_words[] = {
        "connect", "socket", "network", "sendto", "sendmsg", "bind", "getaddrinfo",
        "tcp", "udp", "http:", "https:", "port ", NULL,
};

/* Phrases of the usual tools (coreutils, shells, git, Python, Go) per
 * operation.  Metadata first: "cannot touch" of an existing file is a
 * utimes, but touch names no difference, so it counts as a write. */
static const char *const meta_words[] = {
        "changing permissions", "changing ownership", "changing group", "setting times",
        "setting permissions", "chmod", "chown", "chgrp", "utime", "chtimes", "setxattr",
        "extended attribute", NULL,
};
static const char *const write_words[] = {
        "cannot touch", "cannot create", "cannot remove", "cannot move", "cannot rename",
        "cannot overwrite", "cannot make", "cannot link", "cannot write", "cannot delete",
        "cannot truncate", "failed to create", "failed to remove", "failed to write",
        "unable to create", "unable to write", "unable to unlink", "unable to remove",
        "could not create", "could not lock", "could not write", "couldn't create", "for writing", "write error", "writing", "mkdir", "rmdir",
        "unlink", "rename", "remove", "truncate", "symlink", "creat", "save", NULL,
};
static const char *const read_words[] = {
        "cannot open directory", "cannot read", "cannot access", "cannot stat",
        "cannot list", "for reading", "read error", "reading", "opendir", "scandir",
        "lstat", "stat ", NULL,
};
static const char *const exec_words[] = {
        "cannot execute", "cannot run", "execve", "execvp", "execv ", "exec:", "fork/exec",
        NULL,
};

/* Programs whose "<prog>: [N: | line N: ]<path>: Permission denied" is a
 * failed execution of <path> (a shell, or a wrapper that execs). */
static const char *const exec_progs[] = {
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "env", "xargs",
        "exec", "nohup", "timeout", "nice", "setsid", "stdbuf", "time", NULL,
};

/* 1 if s[0..len) is a run of digits, or "line " and digits. */
static int is_line_number(const char *s, size_t len)
{
        size_t i = 0;

        if (len > 5 && find(s, 5, "line ") == 0)
                i = 5;
        if (i == len)
                return 0;
        for (; i < len; i++)
                if (s[i] < '0' || s[i] > '9')
                        return 0;
        return 1;
}

/* 1 if the line is "<exec prog>: [N: | line N: ]<path>: <errno text>"
 * with the path (its quotes included) at [poff, pend) and the errno text
 * at eoff: a shell or a wrapper that failed to execute, or (a shell) to
 * open a redirection of, <path>. */
static int shell_shape(const char *line, size_t poff, size_t pend, size_t eoff)
{
        const char *colon = memchr(line, ':', poff);
        const char *prog;
        size_t plen0, i, mid;

        if (colon == NULL || pend + 2 != eoff || line[pend] != ':' || line[pend + 1] != ' ')
                return 0;
        /* The program: its last path component ("/bin/sh: ..."). */
        prog = line;
        plen0 = (size_t) (colon - line);
        for (i = 0; i < plen0; i++)
                if (line[i] == '/')
                        prog = line + i + 1;
        plen0 = (size_t) (colon - prog);
        for (i = 0; exec_progs[i] != NULL; i++)
                if (strlen(exec_progs[i]) == plen0 && memcmp(prog, exec_progs[i], plen0) == 0)
                        break;
        if (exec_progs[i] == NULL)
                return 0;
        /* Between "prog: " and the path: nothing, or a line number. */
        mid = (size_t) (colon - line) + 2;
        if (mid == poff)
                return 1;
        if (mid + 2 < poff && line[poff - 2] == ':' && line[poff - 1] == ' ')
                return is_line_number(line + mid, poff - 2 - mid);
        return 0;
}

/* A quoted span starting at line[i]: the opening quote's length, the
 * closing sequence; 0 if line[i] opens none. */
static size_t quote_open(const char *line, size_t len, size_t i, const char **close)
{
        unsigned char c = (unsigned char) line[i];

        if (c == '\'' || c == '"') {
                *close = c == '\'' ? "'" : "\"";
                return 1;
        }
        if (c == '`') {
                *close = "'";
                return 1;
        }
        /* U+2018 (opening single quote) ... U+2019, U+201C ... U+201D. */
        if (c == 0xE2 && i + 2 < len && (unsigned char) line[i + 1] == 0x80) {
                if ((unsigned char) line[i + 2] == 0x98) {
                        *close = "\xE2\x80\x99";
                        return 3;
                }
                if ((unsigned char) line[i + 2] == 0x9C) {
                        *close = "\xE2\x80\x9D";
                        return 3;
                }
        }
        return 0;
}

/* Record a candidate path [off, off + plen), with q_open / q_close quote
 * bytes around it, relative to the errno text at eoff: keep the nearest
 * one before it, else the first after it. */
static void candidate(struct sbx__denial_line *out, size_t off, size_t plen, size_t q_open,
                      size_t q_close, size_t eoff)
{
        int take;

        if (plen == 0 || plen >= SBX_PATH_MAX)
                return;
        if (off + plen <= eoff)
                take = !out->has_path || out->path_off > eoff || off > out->path_off;
        else
                take = !out->has_path || (out->path_off > eoff && off < out->path_off);
        if (!take)
                return;
        out->has_path = 1;
        out->path_off = off;
        out->path_len = plen;
        out->q_open = q_open;
        out->q_close = q_close;
}

/* 1 if an unquoted word looks like a path: it holds a '/', or is "." or "..". */
static int pathish(const char *w, size_t n)
{
        return (n == 1 && w[0] == '.') || (n == 2 && w[0] == '.' && w[1] == '.') ||
               memchr(w, '/', n) != NULL;
}

static void find_paths(const char *line, size_t len, size_t eoff, size_t elen,
                       struct sbx__denial_line *out)
{
        size_t i, start;

        /* Quoted spans anywhere in the line. */
        for (i = 0; i < len; i++) {
                const char *close = NULL;
                size_t q = quote_open(line, len, i, &close), j, cl;

                if (q == 0)
                        continue;
                cl = strlen(close);
                for (j = i + q; j + cl <= len; j++)
                        if (memcmp(line + j, close, cl) == 0)
                                break;
                if (j + cl > len)
                        break;          /* unterminated: the rest is no path */
                if (memchr(line + i + q, '\n', j - i - q) == NULL &&
                    !(i + q <= eoff && j > eoff))
                        candidate(out, i + q, j - i - q, q, cl, eoff);
                i = j + cl - 1;
        }
        /* Unquoted: ": "-separated fields before the errno text; a field
         * that is one path-like word, or whose last word is path-like
         * ("sh: 1: cannot create /etc/x: ..."). */
        start = 0;
        for (i = 0; i <= eoff; i++) {
                size_t end, w;

                if (i < eoff && !(line[i] == ':' && i + 1 < len && line[i + 1] == ' '))
                        continue;
                end = i;
                while (end > start && line[end - 1] == ' ')
                        end--;
                w = end;
                while (w > start && line[w - 1] != ' ' && line[w - 1] != '\'' &&
                       line[w - 1] != '"')
                        w--;
                /* The first field names the program ("/bin/bash: connect:
                 * ..."), unless the errno text follows it directly. */
                if (end > w && pathish(line + w, end - w) && (start > 0 || i + 2 == eoff))
                        candidate(out, w, end - w, 0, 0, eoff);
                start = i + 2;
        }
        /* Unquoted after the errno text ("... Permission denied: /x"). */
        if (!out->has_path && eoff + elen + 2 < len && line[eoff + elen] == ':') {
                size_t a = eoff + elen + 1, b;

                while (a < len && line[a] == ' ')
                        a++;
                b = a;
                while (b < len && line[b] != ' ' && line[b] != '\r')
                        b++;
                if (b > a && pathish(line + a, b - a))
                        candidate(out, a, b - a, 0, 0, eoff);
        }
}

void sbx__denial_scan_line(const char *line, size_t len, struct sbx__denial_line *out)
{
        size_t i, elen = 0;
        long eoff = -1;

        memset(out, 0, sizeof(*out));
        out->op = SBX__DL_OP_UNKNOWN;
        for (i = 0; net_texts[i] != NULL; i++)
                if (find(line, len, net_texts[i]) >= 0)
                        out->net = 1;
        for (i = 0; i < SBX__ARRAY_SIZE(errno_texts); i++) {
                long at = find(line, len, errno_texts[i].text);

                if (at >= 0 && (eoff < 0 || at < eoff)) {
                        eoff = at;
                        elen = strlen(errno_texts[i].text);
                        out->err = errno_texts[i].err;
                }
        }
        if (eoff < 0)
                return;
        out->err_off = (size_t) eoff;
        find_paths(line, len, (size_t) eoff, elen, out);
        /* bash's /dev/tcp/<host>/<port> is a connection, not a file. */
        if (out->has_path && out->path_len > 9 &&
            (memcmp(line + out->path_off, "/dev/tcp/", 9) == 0 ||
             memcmp(line + out->path_off, "/dev/udp/", 9) == 0)) {
                out->has_path = 0;
                out->dev_net = 1;
        }
        /* Operation words anywhere but in the path and the errno text (it
         * says "read-only"); the first 1 KiB of the line is enough. */
        {
                size_t skip = out->has_path ? out->path_off : (size_t) eoff;
                size_t skip_len = out->has_path ? out->path_len : elen;
                char tmp[1024];
                size_t n = len < sizeof(tmp) ? len : sizeof(tmp);

                memcpy(tmp, line, n);
                for (i = (size_t) eoff; i < (size_t) eoff + elen && i < n; i++)
                        tmp[i] = ' ';
                if (skip > n)
                        skip = n;
                if (skip_len > n - skip)
                        skip_len = n - skip;
                if (out->err == SBX__DL_EROFS)
                        out->op = SBX__DL_OP_WRITE;
                else if (has_any(tmp, n, skip, skip_len, meta_words))
                        out->op = SBX__DL_OP_META;
                else if (has_any(tmp, n, skip, skip_len, exec_words))
                        out->op = SBX__DL_OP_EXEC;
                else if (out->has_path &&
                         shell_shape(line, out->path_off - out->q_open,
                                     out->path_off + out->path_len + out->q_close, (size_t) eoff))
                        out->op = SBX__DL_OP_SHELL;
                else if (has_any(tmp, n, skip, skip_len, write_words))
                        out->op = SBX__DL_OP_WRITE;
                else if (has_any(tmp, n, skip, skip_len, read_words))
                        out->op = SBX__DL_OP_READ;
                out->net_words = out->dev_net || has_any(tmp, n, skip, skip_len, net_words);
        }
}
