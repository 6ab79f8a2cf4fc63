/*
 * access.c - the gate seam: sbx_profile_access_version and
 * sbx_profile_access_for with the documented scope grammar (paths,
 * tree:, host, host:port, normalised commands); a malformed scope is an
 * error, never a value.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths/paths_internal.h"
#include "profile/profile_internal.h"

/* ------------------------------------------------------------ gate seam */

uint32_t sbx_profile_access_version(void)
{
        return SBX_PROFILE_ACCESS_VERSION;
}

/* An exactly configured root ("tree:<path>"); its read/write or -1. */
static int find_root(const sbx_profile *p, const char *path, int32_t *r, int32_t *w)
{
        size_t lo = 0, hi = p->n_roots;

        if (strcmp(path, p->workspace_root) == 0) {
                *r = p->workspace_read;
                *w = p->workspace_write;
                return 0;
        }
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int d = strcmp(path, p->roots[mid].path);

                if (d == 0) {
                        *r = p->roots[mid].read;
                        *w = p->roots[mid].write;
                        return 0;
                }
                if (d < 0)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        return -1;
}

static sbx_code fs_scope(const char *fn, const sbx_profile *p, const char *kind, int write,
                         const char *scope, int32_t *access, sbx_error *err)
{
        char shown[64];
        enum path_syntax s;
        const char *path = scope;
        int32_t r, w;

        if (strcmp(scope, "host") == 0) {
                *access = write ? p->host_write : p->host_read;
                return SBX_OK;
        }
        if (strncmp(scope, "tree:", 5) == 0)
                path = scope + 5;
        s = sbx__path_syntax(path);
        if (s != PATH_OK)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: %s scope \"%s\": the path %s; expected a canonical "
                                 "absolute path, \"tree:<root>\" or \"host\"", fn, kind,
                                 sbx__printable(scope, shown, sizeof(shown)), sbx__path_syntax_text(s));
        if (path == scope) {
                *access = sbx__profile_path_access(p, path, write);
                return SBX_OK;
        }
        if (find_root(p, path, &r, &w) != 0)
                return sbx__fail(err, SBX_E_NOT_FOUND, 0,
                                 "%s: %s scope \"%s\" names no configured root", fn, kind,
                                 sbx__printable(scope, shown, sizeof(shown)));
        *access = write ? w : r;
        return SBX_OK;
}

static int is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static int is_alnum(char c)
{
        return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_xdigit(char c)
{
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A decimal port 1..65535: digits only, no sign, no leading zero. */
int sbx__net_port_ok(const char *s)
{
        size_t i;
        long v = 0;

        if (s[0] == '\0' || s[0] == '0')
                return 0;
        for (i = 0; s[i] != '\0'; i++) {
                if (!is_digit(s[i]) || i >= 5)
                        return 0;
                v = v * 10 + (s[i] - '0');
        }
        return v >= 1 && v <= 65535;
}

/*
 * A DNS name: labels of [A-Za-z0-9-], 1..63 bytes, not starting or ending
 * with '-', at most 253 bytes in all, no trailing dot.  A name whose last
 * label is numeric (all digits, or "0x" hex) must be a strict dotted-quad
 * IPv4 address instead: resolvers read "127.1" and "0x7f000001" as
 * 127.0.0.1, so such a scope would not name what it appears to.
 */
int sbx__net_host_ok(const char *h, size_t n)
{
        char buf[16];
        struct in_addr a4;
        size_t i, start = 0;
        int last_numeric;

        if (n == 0 || n > 253)
                return 0;
        for (i = 0; i <= n; i++) {
                if (i < n && h[i] != '.') {
                        if (!is_alnum(h[i]) && h[i] != '-')
                                return 0;
                        continue;
                }
                if (i == start || i - start > 63 || h[start] == '-' || h[i - 1] == '-')
                        return 0;
                if (i < n)
                        start = i + 1;
        }
        /* h[start..n) is the last label. */
        last_numeric = 1;
        for (i = start; i < n; i++)
                if (!is_digit(h[i]))
                        last_numeric = 0;
        if (!last_numeric && n - start >= 2 && h[start] == '0' &&
            (h[start + 1] == 'x' || h[start + 1] == 'X')) {
                last_numeric = 1;
                for (i = start + 2; i < n; i++)
                        if (!is_xdigit(h[i]))
                                last_numeric = 0;
        }
        if (!last_numeric)
                return 1;
        if (n >= sizeof(buf))
                return 0;
        memcpy(buf, h, n);
        buf[n] = '\0';
        return inet_pton(AF_INET, buf, &a4) == 1;
}

/* "*", "<dns-or-ipv4>:<port>" or "[<ipv6>]:<port>". */
static int network_scope_ok(const char *s)
{
        char buf[64];
        struct in6_addr a6;
        const char *colon, *close;
        size_t n;

        if (strcmp(s, "*") == 0)
                return 1;
        n = strnlen(s, 300);
        if (n >= 300)
                return 0;
        if (s[0] == '[') {
                close = strchr(s, ']');
                if (close == NULL || close == s + 1 || (size_t) (close - s - 1) >= sizeof(buf))
                        return 0;
                memcpy(buf, s + 1, (size_t) (close - s - 1));
                buf[close - s - 1] = '\0';
                if (inet_pton(AF_INET6, buf, &a6) != 1)
                        return 0;
                return close[1] == ':' && sbx__net_port_ok(close + 2);
        }
        colon = strrchr(s, ':');
        if (colon == NULL)
                return 0;
        return sbx__net_host_ok(s, (size_t) (colon - s)) && sbx__net_port_ok(colon + 1);
}

/* Unicode White_Space (the ASCII ones other than ' ' are controls too). */
static int uni_space(uint32_t cp)
{
        return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0x85 || cp == 0xa0 ||
               cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
               cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* The normalized command: non-empty, <= 65536 bytes, valid UTF-8, no
 * control character (C0, DEL, C1), no leading/trailing White_Space. */
static const char *command_error(const char *s)
{
        const unsigned char *u = (const unsigned char *) s;
        size_t n, i = 0, len;
        uint32_t cp = 0;

        n = strnlen(s, SBX__COMMAND_MAX + 1);
        if (n == 0)
                return "is empty";
        if (n > SBX__COMMAND_MAX)
                return "is longer than 65536 bytes";
        while (i < n) {
                len = sbx__utf8_decode(u + i, n - i, &cp);
                if (len == 0)
                        return "is not valid UTF-8";
                if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
                        return "contains a control character";
                if (i == 0 && uni_space(cp))
                        return "has leading whitespace";
                i += len;
        }
        if (uni_space(cp))
                return "has trailing whitespace";
        return NULL;
}

sbx_code sbx_profile_access_for(const sbx_profile *profile, uint32_t version, const char *kind,
                                const char *scope, int32_t *access_out, sbx_error *err)
{
        const char *fn = "sbx_profile_access_for";
        char shown[64];
        const char *why;
        int32_t a = SBX_ACCESS_DENY;    /* every branch sets it or fails */
        sbx_code c;

        if (profile == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile is NULL", fn);
        if (kind == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: kind is NULL", fn);
        if (scope == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: scope is NULL", fn);
        if (access_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: access_out is NULL", fn);
        if (version != SBX_PROFILE_ACCESS_VERSION)
                return sbx__fail(err, SBX_E_UNSUPPORTED, 0,
                                 "%s: access version %u is not supported (this library "
                                 "speaks %u)", fn, (unsigned) version,
                                 (unsigned) SBX_PROFILE_ACCESS_VERSION);
        if (strcmp(kind, "filesystem.read") == 0 || strcmp(kind, "filesystem.write") == 0) {
                int write = strcmp(kind, "filesystem.write") == 0;

                c = fs_scope(fn, profile, kind, write, scope, &a, err);
                if (c != SBX_OK)
                        return c;
        } else if (strcmp(kind, "network") == 0) {
                if (!network_scope_ok(scope))
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: network scope \"%s\" is malformed; expected "
                                         "\"<host>:<port>\", \"[<ipv6>]:<port>\" or \"*\"", fn,
                                         sbx__printable(scope, shown, sizeof(shown)));
                a = profile->network;
        } else if (strcmp(kind, "command.execute") == 0) {
                why = command_error(scope);
                if (why != NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: command.execute scope \"%s\" %s; expected the "
                                         "exact normalized command", fn,
                                         sbx__printable(scope, shown, sizeof(shown)), why);
                a = profile->command;
        } else {
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: unknown kind \"%s\"; version 1 knows filesystem.read, "
                                 "filesystem.write, network and command.execute", fn,
                                 sbx__printable(kind, shown, sizeof(shown)));
        }
        *access_out = a;
        return SBX_OK;
}

