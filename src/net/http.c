/*
 * http.c - the egress proxy's HTTP/1 request head: parsing (strict; a
 * head this code is unsure of is refused, never guessed at), the
 * Proxy-Authorization check, the origin-form rewrite of a forward
 * request, and the proxy's own short responses (docs/network.md,
 * "Requests").  Pure; fuzzed by fuzz/fuzz_proxy_request.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include <nettle/base64.h>
#include <nettle/memops.h>

#include "net/net.h"

size_t sbx__http_head_end(const char *buf, size_t len)
{
        size_t i;

        for (i = 0; i + 1 < len; i++) {
                if (buf[i] != '\n')
                        continue;
                if (buf[i + 1] == '\n')
                        return i + 2;
                if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
                        return i + 3;
        }
        return 0;
}

/* RFC 9110 tchar. */
static int is_tchar(unsigned char c)
{
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static int span_is(const char *buf, struct sbx__http_span s, const char *word)
{
        size_t i, n = strlen(word);

        if (s.len != n)
                return 0;
        for (i = 0; i < n; i++)
                if (sbx__ascii_lower((unsigned char) buf[s.off + i]) != word[i])
                        return 0;
        return 1;
}

static struct sbx__http_span span(size_t off, size_t len)
{
        struct sbx__http_span s = { (uint32_t) off, (uint32_t) len };

        return s;
}

/* The line starting at *pos within buf[0..len): its span without the line
 * end; *pos moves past it.  -1 for a bare CR or a NUL in it. */
static int next_line(const char *buf, size_t len, size_t *pos, struct sbx__http_span *line)
{
        size_t i = *pos, end;

        while (i < len && buf[i] != '\n') {
                if (buf[i] == '\0' || (buf[i] == '\r' && (i + 1 >= len || buf[i + 1] != '\n')))
                        return -1;
                i++;
        }
        if (i >= len)
                return -1;
        end = i > *pos && buf[i - 1] == '\r' ? i - 1 : i;
        *line = span(*pos, end - *pos);
        *pos = i + 1;
        return 0;
}

static sbx_code parse_target(const char *buf, struct sbx__http_span t,
                             struct sbx__http_request *req, sbx_error *err)
{
        const char *s = buf + t.off;
        size_t i, a;

        if (req->is_connect)
                return sbx__net_authority_parse("CONNECT target", s, t.len, 0, &req->target,
                                                err);
        if (t.len > 0 && (s[0] == '/' || s[0] == '*'))
                return sbx__fail(err, SBX_E_INVALID, 0, "not a proxy request (origin-form "
                                 "target): send the absolute URL, as clients do when "
                                 "http_proxy is set");
        for (i = 0; i < t.len && s[i] != ':'; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                      (i > 0 && ((s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' ||
                                 s[i] == '.'))))
                        break;
        if (i == 0 || i >= t.len || s[i] != ':' || i + 2 >= t.len || s[i + 1] != '/' ||
            s[i + 2] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "the request target is not an "
                                 "absolute http:// URL");
        if (i != 4 || sbx__ascii_lower((unsigned char) s[0]) != 'h' ||
            sbx__ascii_lower((unsigned char) s[1]) != 't' ||
            sbx__ascii_lower((unsigned char) s[2]) != 't' ||
            sbx__ascii_lower((unsigned char) s[3]) != 'p') {
                /* The target still names the host for the refusal's event. */
                int https = i == 5 && span_is(buf, span(t.off, 5), "https");

                a = i + 3;
                for (i = a; i < t.len && s[i] != '/' && s[i] != '?' && s[i] != '@'; i++)
                        ;
                req->target_ok = (i == t.len || s[i] != '@') &&
                                 sbx__net_authority_parse("URL", s + a, i - a,
                                                          https ? 443 : 0,
                                                          &req->target, NULL) == SBX_OK;
                return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "only http:// URLs are forwarded; "
                                 "https:// and the rest go through CONNECT (https_proxy)");
        }
        a = i + 3;
        for (i = a; i < t.len && s[i] != '/' && s[i] != '?'; i++)
                if (s[i] == '@')
                        return sbx__fail(err, SBX_E_INVALID, 0, "a URL with user information "
                                         "(user@host) is refused");
        if (memchr(s, '#', t.len) != NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "a request target with a fragment");
        req->path = span(t.off + i, t.len - i);
        return sbx__net_authority_parse("URL", s + a, i - a, 80, &req->target, err);
}

/* Transparent mode's request target: origin-form, "*" or an absolute
 * http:// URL (its host in req->target, target_ok set); never CONNECT. */
static sbx_code origin_target(const char *buf, struct sbx__http_span t, uint16_t port,
                              struct sbx__http_request *req, sbx_error *err)
{
        const char *s = buf + t.off;
        size_t i;
        sbx_code r;

        if (req->is_connect)
                return sbx__fail(err, SBX_E_INVALID, 0, "CONNECT sent to an origin (a "
                                 "transparent connection is not a proxy)");
        if (memchr(s, '#', t.len) != NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "a request target with a fragment");
        if (t.len > 0 && s[0] == '/') {
                req->path = t;
                return SBX_OK;
        }
        if (t.len == 1 && s[0] == '*')
                return SBX_OK;
        if (t.len < 7 || !span_is(buf, span(t.off, 7), "http://"))
                return sbx__fail(err, SBX_E_INVALID, 0, "the request target is neither a path "
                                 "nor an absolute http:// URL");
        for (i = 7; i < t.len && s[i] != '/' && s[i] != '?'; i++)
                if (s[i] == '@')
                        return sbx__fail(err, SBX_E_INVALID, 0, "a URL with user information "
                                         "(user@host) is refused");
        req->path = span(t.off + i, t.len - i);
        r = sbx__net_authority_parse("URL", s + 7, i - 7, 80, &req->target, err);
        if (r != SBX_OK)
                return r;
        req->target.port = port;
        req->target_ok = 1;
        return SBX_OK;
}

/* Transparent mode's host: the one Host header (the absolute URL's host,
 * when there is one, must be the same). */
static sbx_code origin_host(const char *buf, uint16_t port, struct sbx__http_request *req,
                            sbx_error *err)
{
        const struct sbx__http_header *host = NULL;
        struct sbx__net_target t;
        size_t i;
        sbx_code r;

        for (i = 0; i < req->nheaders; i++) {
                if (!span_is(buf, req->headers[i].name, "host"))
                        continue;
                if (host != NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0, "two Host headers");
                host = &req->headers[i];
        }
        if (host == NULL)
                return SBX_OK;                  /* the URL's host, or none */
        r = sbx__net_authority_parse("Host header", buf + host->value.off, host->value.len,
                                     port, &t, err);
        if (r != SBX_OK)
                return r;
        t.port = port;
        if (req->target_ok && strcmp(t.host.text, req->target.host.text) != 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "the Host header names %s, the URL %s",
                                 t.host.text, req->target.host.text);
        req->target = t;
        req->target_ok = 1;
        return SBX_OK;
}

/* The head, as a proxy request (origin 0) or as one sent to an origin. */
static sbx_code parse_head(const char *buf, size_t len, int origin, uint16_t port,
                           struct sbx__http_request *req, sbx_error *err)
{
        struct sbx__http_span line, method, target;
        size_t pos = 0, i, sp1, sp2;
        int has_cl = 0, has_te = 0;
        sbx_code r;

        memset(req, 0, sizeof(*req));
        req->auth = -1;
        if (len > UINT32_MAX || next_line(buf, len, &pos, &line) < 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "the request line is not a line");
        /* METHOD SP target SP HTTP/1.x, single spaces. */
        for (sp1 = 0; sp1 < line.len && buf[line.off + sp1] != ' '; sp1++)
                if (!is_tchar((unsigned char) buf[line.off + sp1]))
                        return sbx__fail(err, SBX_E_INVALID, 0, "the method is not a token");
        for (sp2 = sp1 + 1; sp2 < line.len && buf[line.off + sp2] != ' '; sp2++)
                if ((unsigned char) buf[line.off + sp2] <= 0x20 ||
                    (unsigned char) buf[line.off + sp2] == 0x7f)
                        return sbx__fail(err, SBX_E_INVALID, 0, "a control character in the "
                                         "request target");
        if (sp1 == 0 || sp1 > 32 || sp1 >= line.len || sp2 == sp1 + 1 || sp2 >= line.len ||
            line.len - sp2 - 1 != 8 || memcmp(buf + line.off + sp2 + 1, "HTTP/1.", 7) != 0 ||
            (buf[line.off + line.len - 1] != '0' && buf[line.off + line.len - 1] != '1'))
                return sbx__fail(err, SBX_E_INVALID, 0, "the request line is not "
                                 "\"METHOD target HTTP/1.x\"");
        method = span(line.off, sp1);
        target = span(line.off + sp1 + 1, sp2 - sp1 - 1);
        req->method = method;
        req->minor = buf[line.off + line.len - 1] - '0';
        req->is_connect = sp1 == 7 && memcmp(buf + line.off, "CONNECT", 7) == 0;
        r = origin ? origin_target(buf, target, port, req, err)
                   : parse_target(buf, target, req, err);
        if (r != SBX_OK)
                return r;
        if (!origin)
                req->target_ok = 1;     /* also kept on the failures below */

        for (;;) {
                struct sbx__http_header *h;
                size_t colon, v0, v1;

                if (next_line(buf, len, &pos, &line) < 0)
                        return sbx__fail(err, SBX_E_INVALID, 0, "a header line has a bare CR, "
                                         "a NUL or no end");
                if (line.len == 0)
                        break;
                if (buf[line.off] == ' ' || buf[line.off] == '\t')
                        return sbx__fail(err, SBX_E_INVALID, 0, "a folded header line "
                                         "(obs-fold)");
                for (colon = 0; colon < line.len && buf[line.off + colon] != ':'; colon++)
                        if (!is_tchar((unsigned char) buf[line.off + colon]))
                                return sbx__fail(err, SBX_E_INVALID, 0, "a header name is not "
                                                 "a token");
                if (colon == 0 || colon == line.len)
                        return sbx__fail(err, SBX_E_INVALID, 0, "a header line without "
                                         "\"name:\"");
                for (i = colon + 1; i < line.len; i++) {
                        unsigned char c = (unsigned char) buf[line.off + i];

                        if ((c < 0x20 && c != '\t') || c == 0x7f)
                                return sbx__fail(err, SBX_E_INVALID, 0, "a control character "
                                                 "in a header value");
                }
                if (req->nheaders == SBX__HTTP_HEADERS_MAX)
                        return sbx__fail(err, SBX_E_INVALID, 0, "more than %d header lines",
                                         SBX__HTTP_HEADERS_MAX);
                v0 = colon + 1;
                v1 = line.len;
                while (v0 < v1 && (buf[line.off + v0] == ' ' || buf[line.off + v0] == '\t'))
                        v0++;
                while (v1 > v0 && (buf[line.off + v1 - 1] == ' ' ||
                                   buf[line.off + v1 - 1] == '\t'))
                        v1--;
                h = &req->headers[req->nheaders];
                h->name = span(line.off, colon);
                h->value = span(line.off + v0, v1 - v0);
                if (span_is(buf, h->name, "proxy-authorization")) {
                        if (req->auth >= 0)
                                return sbx__fail(err, SBX_E_INVALID, 0, "two "
                                                 "Proxy-Authorization headers");
                        req->auth = (int) req->nheaders;
                }
                has_cl |= span_is(buf, h->name, "content-length");
                has_te |= span_is(buf, h->name, "transfer-encoding");
                req->nheaders++;
        }
        if (pos != len)
                return sbx__fail(err, SBX_E_INVALID, 0, "bytes after the end of the head");
        if (has_cl && has_te)
                return sbx__fail(err, SBX_E_INVALID, 0, "both Content-Length and "
                                 "Transfer-Encoding");
        return origin ? origin_host(buf, port, req, err) : SBX_OK;
}

sbx_code sbx__http_parse(const char *buf, size_t len, struct sbx__http_request *req,
                         sbx_error *err)
{
        return parse_head(buf, len, 0, 0, req, err);
}

sbx_code sbx__http_parse_origin(const char *buf, size_t len, uint16_t port,
                                struct sbx__http_request *req, sbx_error *err)
{
        if (port == 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "port 0");
        return parse_head(buf, len, 1, port, req, err);
}

int sbx__http_auth_ok(const char *buf, const struct sbx__http_request *req, const char *user,
                      const char *password)
{
        struct base64_decode_ctx ctx;
        uint8_t got[256];
        char want[256];
        size_t glen = 0, wlen, i;
        const char *v;
        struct sbx__http_span s;
        int ok;

        if (req->auth < 0)
                return 0;
        s = req->headers[req->auth].value;
        v = buf + s.off;
        if (s.len < 6 || !span_is(buf, span(s.off, 5), "basic") || (v[5] != ' ' && v[5] != '\t'))
                return 0;
        for (i = 6; i < s.len && (v[i] == ' ' || v[i] == '\t'); i++)
                ;
        if (s.len - i > 4 * (sizeof(got) / 3) - 4)
                return 0;
        base64_decode_init(&ctx);
        if (!base64_decode_update(&ctx, &glen, got, s.len - i, v + i) ||
            !base64_decode_final(&ctx))
                return 0;
        wlen = (size_t) snprintf(want, sizeof(want), "%s:%s", user, password);
        if (wlen >= sizeof(want) || glen != wlen)
                return 0;
        ok = memeql_sec(got, want, wlen);
        memset(got, 0, sizeof(got));
        memset(want, 0, sizeof(want));
        return ok;
}

/* Is the header named by h hop-by-hop (or Host, which the rewrite sets)? */
static int dropped(const char *buf, const struct sbx__http_request *req,
                   const struct sbx__http_header *h)
{
        static const char *const hop[] = {
                "connection", "keep-alive", "proxy-authorization", "proxy-authenticate",
                "proxy-connection", "te", "trailer", "upgrade", "host",
        };
        size_t i, k;

        for (i = 0; i < SBX__ARRAY_SIZE(hop); i++)
                if (span_is(buf, h->name, hop[i]))
                        return 1;
        /* ... and every header a Connection header names. */
        for (i = 0; i < req->nheaders; i++) {
                const struct sbx__http_header *c = &req->headers[i];
                size_t a = 0;

                if (!span_is(buf, c->name, "connection"))
                        continue;
                while (a < c->value.len) {
                        const char *v = buf + c->value.off;

                        while (a < c->value.len && (v[a] == ',' || v[a] == ' ' || v[a] == '\t'))
                                a++;
                        for (k = a; k < c->value.len && v[k] != ',' && v[k] != ' ' &&
                                    v[k] != '\t'; k++)
                                ;
                        if (k > a && k - a == h->name.len) {
                                size_t j;

                                for (j = 0; j < k - a; j++)
                                        if (sbx__ascii_lower((unsigned char) v[a + j]) !=
                                            sbx__ascii_lower((unsigned char) buf[h->name.off + j]))
                                                break;
                                if (j == k - a)
                                        return 1;
                        }
                        a = k;
                }
        }
        return 0;
}

/* Append s[0..n) to out at *o; 0 when it does not fit. */
static int put(char *out, size_t outsz, size_t *o, const char *s, size_t n)
{
        if (n > outsz - *o)
                return 0;
        memcpy(out + *o, s, n);
        *o += n;
        return 1;
}

#define PUTS(s) put(out, outsz, &o, (s), strlen(s))

size_t sbx__http_rewrite(const char *buf, const struct sbx__http_request *req, char *out,
                         size_t outsz)
{
        char host[SBX__NET_TARGET_TEXT];
        size_t o = 0, i;
        int ok;

        if (req->target.port == 80) {
                int v6 = req->target.host.is_addr && req->target.host.addr.family == 6;

                (void) snprintf(host, sizeof(host), "%s%s%s", v6 ? "[" : "",
                                req->target.host.text, v6 ? "]" : "");
        } else {
                (void) sbx__net_target_format(&req->target, host);
        }
        ok = put(out, outsz, &o, buf + req->method.off, req->method.len) && PUTS(" ");
        if (ok && (req->path.len == 0 || buf[req->path.off] != '/'))
                ok = PUTS("/");
        ok = ok && put(out, outsz, &o, buf + req->path.off, req->path.len) &&
             PUTS(req->minor == 0 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
        for (i = 0; ok && i < req->nheaders; i++) {
                const struct sbx__http_header *h = &req->headers[i];

                if (dropped(buf, req, h))
                        continue;
                ok = put(out, outsz, &o, buf + h->name.off, h->name.len) && PUTS(": ") &&
                     put(out, outsz, &o, buf + h->value.off, h->value.len) && PUTS("\r\n");
        }
        ok = ok && PUTS("Host: ") && PUTS(host) && PUTS("\r\nConnection: close\r\n\r\n");
        return ok ? o : 0;
}

static const char *reason_phrase(int status)
{
        switch (status) {
        case 200: return "Connection established";
        case 400: return "Bad Request";
        case 403: return "Forbidden";
        case 407: return "Proxy Authentication Required";
        case 408: return "Request Timeout";
        case 431: return "Request Header Fields Too Large";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        default:  return "Error";
        }
}

static int response_head(int status, size_t blen, char *out, size_t outsz)
{
        return snprintf(out, outsz, "HTTP/1.1 %d %s\r\n"
                        "Content-Type: text/plain; charset=utf-8\r\n"
                        "Content-Length: %zu\r\nConnection: close\r\n%s\r\n",
                        status, reason_phrase(status), blen,
                        status == 407 ? "Proxy-Authenticate: Basic realm=\"sandbox\"\r\n" : "");
}

size_t sbx__http_response(int status, const char *body, char *out, size_t outsz)
{
        size_t blen = body != NULL ? strlen(body) : 0;
        int n = response_head(status, blen, out, outsz);

        if (n < 0 || (size_t) n >= outsz)
                return 0;
        if ((size_t) n + blen > outsz) {
                /* A shorter body: its length has no more digits, so the
                 * head gets no longer. */
                blen = outsz - (size_t) n;
                n = response_head(status, blen, out, outsz);
        }
        if (blen > 0)
                memcpy(out + n, body, blen);
        return (size_t) n + blen;
}

size_t sbx__http_basic(const char *user, const char *password, char *out, size_t outsz)
{
        char plain[512];
        size_t n = (size_t) snprintf(plain, sizeof(plain), "%s:%s", user, password), need;

        if (n >= sizeof(plain))
                return 0;
        need = 6 + BASE64_ENCODE_RAW_LENGTH(n);
        if (need + 1 > outsz) {
                memset(plain, 0, sizeof(plain));
                return 0;
        }
        memcpy(out, "Basic ", 6);
        base64_encode_raw(out + 6, n, (const uint8_t *) plain);
        out[need] = '\0';
        memset(plain, 0, sizeof(plain));
        return need;
}
