/* The proxy's HTTP request head (src/net/http.c). */
#include "unit/sbx_test.h"

#include <stdio.h>

#include "net/net.h"

static struct sbx__http_request req;

static sbx_code parse(const char *head, sbx_error *err)
{
        return sbx__http_parse(head, strlen(head), &req, err);
}

static void test_net_http__head_end(void **state)
{
        (void) state;
        assert_int_equal(sbx__http_head_end("GET / HTTP/1.1\r\n", 16), 0);
        assert_int_equal(sbx__http_head_end("GET / HTTP/1.1\r\n\r", 17), 0);
        assert_int_equal(sbx__http_head_end("GET / HTTP/1.1\r\n\r\nbody", 22), 18);
        assert_int_equal(sbx__http_head_end("GET / HTTP/1.1\n\nbody", 20), 16);
        assert_int_equal(sbx__http_head_end("A\r\nB: c\r\n\r\n", 11), 11);
        assert_int_equal(sbx__http_head_end("", 0), 0);
}

static void test_net_http__connect(void **state)
{
        (void) state;
        assert_int_equal(parse("CONNECT Example.COM:443 HTTP/1.1\r\nHost: example.com:443\r\n"
                               "Proxy-Authorization: Basic eDp5\r\n\r\n", NULL), SBX_OK);
        assert_true(req.is_connect);
        assert_int_equal(req.minor, 1);
        assert_string_equal(req.target.host.text, "example.com");
        assert_int_equal(req.target.port, 443);
        assert_int_equal(req.nheaders, 2);
        assert_int_equal(req.auth, 1);
        assert_int_equal(parse("CONNECT [::1]:8443 HTTP/1.0\n\n", NULL), SBX_OK);
        assert_true(req.target.host.is_addr);
        assert_int_equal(req.minor, 0);
        assert_int_equal(req.auth, -1);
        assert_sbx_fails(parse("CONNECT example.com HTTP/1.1\r\n\r\n", err), SBX_E_INVALID,
                         "port is required");
        assert_sbx_fails(parse("CONNECT 127.1:80 HTTP/1.1\r\n\r\n", err), SBX_E_INVALID,
                         "number");
        assert_false(req.target_ok);
}

static void test_net_http__forward(void **state)
{
        static const char head[] = "GET http://Example.com/a/b?c=d HTTP/1.1\r\n"
                                   "Host: other.example\r\nUser-Agent: t\r\n"
                                   "Proxy-Connection: keep-alive\r\n"
                                   "Connection: keep-alive, X-Secret\r\nX-Secret: 1\r\n"
                                   "Proxy-Authorization: Basic eDp5\r\nAccept:  */*  \r\n"
                                   "Keep-Alive: 5\r\nTE: trailers\r\nUpgrade: h2c\r\n\r\n";
        static const char want[] = "GET /a/b?c=d HTTP/1.1\r\nUser-Agent: t\r\nAccept: */*\r\n"
                                   "Host: example.com\r\nConnection: close\r\n\r\n";
        char out[1024];
        size_t n;
        (void) state;

        assert_int_equal(parse(head, NULL), SBX_OK);
        assert_false(req.is_connect);
        assert_string_equal(req.target.host.text, "example.com");
        assert_int_equal(req.target.port, 80);
        n = sbx__http_rewrite(head, &req, out, sizeof(out));
        assert_int_equal(n, strlen(want));
        assert_memory_equal(out, want, n);
        assert_int_equal(sbx__http_rewrite(head, &req, out, n - 1), 0);        /* no room */

        assert_int_equal(parse("POST http://127.0.0.1:8080 HTTP/1.0\r\nContent-Length: 3\r\n\r\n",
                               NULL), SBX_OK);
        assert_int_equal(req.target.port, 8080);
        n = sbx__http_rewrite("POST http://127.0.0.1:8080 HTTP/1.0\r\nContent-Length: 3\r\n\r\n",
                              &req, out, sizeof(out));
        out[n] = '\0';
        assert_string_equal(out, "POST / HTTP/1.0\r\nContent-Length: 3\r\nHost: 127.0.0.1:8080\r\n"
                                 "Connection: close\r\n\r\n");
        assert_int_equal(parse("GET HTTP://[::1]?q HTTP/1.1\r\n\r\n", NULL), SBX_OK);
        n = sbx__http_rewrite("GET HTTP://[::1]?q HTTP/1.1\r\n\r\n", &req, out, sizeof(out));
        out[n] = '\0';
        assert_string_equal(out, "GET /?q HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n");
}

static void test_net_http__malformed(void **state)
{
        static const struct { const char *head, *why; sbx_code code; } t[] = {
                { "GET /index.html HTTP/1.1\r\n\r\n", "origin-form", SBX_E_INVALID },
                { "OPTIONS * HTTP/1.1\r\n\r\n", "origin-form", SBX_E_INVALID },
                { "GET https://example.com/ HTTP/1.1\r\n\r\n", "CONNECT", SBX_E_UNSUPPORTED },
                { "GET ftp://example.com/ HTTP/1.1\r\n\r\n", "CONNECT", SBX_E_UNSUPPORTED },
                { "GET example.com/ HTTP/1.1\r\n\r\n", "absolute", SBX_E_INVALID },
                { "GET http://user@example.com/ HTTP/1.1\r\n\r\n", "user information",
                  SBX_E_INVALID },
                { "GET http://u:p@example.com/ HTTP/1.1\r\n\r\n", "user information",
                  SBX_E_INVALID },
                { "GET http://example.com/#f HTTP/1.1\r\n\r\n", "fragment", SBX_E_INVALID },
                { "GET http://example.com:0/ HTTP/1.1\r\n\r\n", "port 0", SBX_E_INVALID },
                { "GET http:/// HTTP/1.1\r\n\r\n", "empty host", SBX_E_INVALID },
                { "GET  http://a.b/ HTTP/1.1\r\n\r\n", "request line", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/2.0\r\n\r\n", "request line", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1 \r\n\r\n", "request line", SBX_E_INVALID },
                { "GET http://a.b/\r\n\r\n", "request line", SBX_E_INVALID },
                { "G(T http://a.b/ HTTP/1.1\r\n\r\n", "token", SBX_E_INVALID },
                { "GET http://a.b/\x01 HTTP/1.1\r\n\r\n", "control", SBX_E_INVALID },
                { "\r\nGET http://a.b/ HTTP/1.1\r\n\r\n", "request line", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\n folded\r\n\r\n", "obs-fold", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\nHost : a.b\r\n\r\n", "token", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\nNoColon\r\n\r\n", "name:", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\n: v\r\n\r\n", "name:", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\nA: b\rc\r\n\r\n", "bare CR", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\nA: b\x7f\r\n\r\n", "control", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked"
                  "\r\n\r\n", "both", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\nProxy-Authorization: a\r\n"
                  "proxy-authorization: b\r\n\r\n", "two", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\n\r\nextra", "after the end", SBX_E_INVALID },
                { "GET http://a.b/ HTTP/1.1\r\n", "no end", SBX_E_INVALID },
        };
        char many[8192];
        size_t i, o;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(t); i++) {
                sbx_error e = { 0, 0, { 0 } };

                if (parse(t[i].head, &e) != t[i].code)
                        fail_msg("case %zu: %s: parsed (%s)", i, t[i].head, e.message);
                if (strstr(e.message, t[i].why) == NULL)
                        fail_msg("case %zu: \"%s\" lacks \"%s\"", i, e.message, t[i].why);
        }
        /* A NUL inside a header. */
        assert_int_equal(sbx__http_parse("GET http://a.b/ HTTP/1.1\r\nA: \0\r\n\r\n", 32, &req,
                                         NULL), SBX_E_INVALID);
        o = (size_t) snprintf(many, sizeof(many), "GET http://a.b/ HTTP/1.1\r\n");
        for (i = 0; i <= SBX__HTTP_HEADERS_MAX; i++)
                o += (size_t) snprintf(many + o, sizeof(many) - o, "H%zu: v\r\n", i);
        (void) snprintf(many + o, sizeof(many) - o, "\r\n");
        assert_sbx_fails(parse(many, err), SBX_E_INVALID, "header lines");
}

static void test_net_http__auth(void **state)
{
        char hdr[256], head[512];
        (void) state;

        assert_int_equal(sbx__http_basic("sbx", "t0ken", hdr, sizeof(hdr)), 18);
        assert_string_equal(hdr, "Basic c2J4OnQwa2Vu");
        assert_int_equal(sbx__http_basic("sbx", "t0ken", hdr, 18), 0);
        (void) snprintf(head, sizeof(head), "CONNECT a.b:1 HTTP/1.1\r\nProxy-Authorization: "
                        "%s\r\n\r\n", hdr);
        assert_int_equal(parse(head, NULL), SBX_OK);
        assert_true(sbx__http_auth_ok(head, &req, "sbx", "t0ken"));
        assert_false(sbx__http_auth_ok(head, &req, "sbx", "t0kem"));
        assert_false(sbx__http_auth_ok(head, &req, "sbx", "t0ke"));
        assert_false(sbx__http_auth_ok(head, &req, "sbx", "t0kenn"));
        assert_false(sbx__http_auth_ok(head, &req, "sbz", "t0ken"));
        assert_int_equal(parse("CONNECT a.b:1 HTTP/1.1\r\nProxy-Authorization: basic   "
                               "c2J4OnQwa2Vu\r\n\r\n", NULL), SBX_OK);
        assert_true(sbx__http_auth_ok("CONNECT a.b:1 HTTP/1.1\r\nProxy-Authorization: basic   "
                                      "c2J4OnQwa2Vu\r\n\r\n", &req, "sbx", "t0ken"));
        static const char *const bad[] = {
                "CONNECT a.b:1 HTTP/1.1\r\n\r\n",
                "CONNECT a.b:1 HTTP/1.1\r\nProxy-Authorization: Bearer c2J4OnQwa2Vu\r\n\r\n",
                "CONNECT a.b:1 HTTP/1.1\r\nProxy-Authorization: Basic\r\n\r\n",
                "CONNECT a.b:1 HTTP/1.1\r\nProxy-Authorization: Basicc2J4OnQwa2Vu\r\n\r\n",
                "CONNECT a.b:1 HTTP/1.1\r\nProxy-Authorization: Basic c2J4OnQwa2V!\r\n\r\n",
                "CONNECT a.b:1 HTTP/1.1\r\nAuthorization: Basic c2J4OnQwa2Vu\r\n\r\n",
        };
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++) {
                assert_int_equal(parse(bad[i], NULL), SBX_OK);
                if (sbx__http_auth_ok(bad[i], &req, "sbx", "t0ken"))
                        fail_msg("accepted %s", bad[i]);
        }
}

static void test_net_http__responses(void **state)
{
        char out[512], tiny[120];
        size_t n;
        (void) state;

        n = sbx__http_response(403, "sandbox proxy: x refused\n", out, sizeof(out));
        out[n] = '\0';
        assert_non_null(strstr(out, "HTTP/1.1 403 Forbidden\r\n"));
        assert_non_null(strstr(out, "Content-Length: 25\r\n"));
        assert_non_null(strstr(out, "Connection: close\r\n\r\nsandbox proxy: x refused\n"));
        assert_null(strstr(out, "Proxy-Authenticate"));
        n = sbx__http_response(407, "no", out, sizeof(out));
        out[n] = '\0';
        assert_non_null(strstr(out, "407 Proxy Authentication Required\r\n"));
        assert_non_null(strstr(out, "Proxy-Authenticate: Basic realm=\"sandbox\"\r\n"));
        /* A body that does not fit is cut, and its length says so. */
        memset(out, 'x', 300);
        out[300] = '\0';
        n = sbx__http_response(400, out, tiny, sizeof(tiny));
        assert_true(n <= sizeof(tiny) && n + 2 >= sizeof(tiny));
        {
                char len[32];
                const char *body = memmem(tiny, n, "\r\n\r\n", 4);

                assert_non_null(body);
                (void) snprintf(len, sizeof(len), "Content-Length: %zu\r\n",
                                n - (size_t) (body + 4 - tiny));
                assert_non_null(memmem(tiny, n, len, strlen(len)));
        }
        assert_int_equal(sbx__http_response(400, "x", tiny, 10), 0);
        n = sbx__http_response(502, NULL, out, sizeof(out));
        assert_true(n > 0 && memcmp(out + n - 4, "\r\n\r\n", 4) == 0);
}

static sbx_code parse_origin(const char *head, uint16_t port, sbx_error *err)
{
        return sbx__http_parse_origin(head, strlen(head), port, &req, err);
}

/* Transparent mode: a request sent to an origin, the host from Host. */
static void test_net_http__origin_requests(void **state)
{
        (void) state;
        assert_int_equal(parse_origin("GET /a?b HTTP/1.1\r\nHost: Example.COM:8080\r\n"
                                      "Accept: */*\r\n\r\n", 443, NULL), SBX_OK);
        assert_true(req.target_ok);
        assert_string_equal(req.target.host.text, "example.com");
        assert_int_equal(req.target.port, 443);         /* the original port, always */
        assert_int_equal(req.path.len, 4);
        assert_int_equal(parse_origin("OPTIONS * HTTP/1.1\r\nHost: [::1]\r\n\r\n", 80,
                                      NULL), SBX_OK);
        assert_true(req.target.host.is_addr);
        /* No Host (HTTP/1.0): no target here; the original address is. */
        assert_int_equal(parse_origin("GET / HTTP/1.0\r\n\r\n", 80, NULL), SBX_OK);
        assert_false(req.target_ok);
        /* An absolute URL must name the Host's host. */
        assert_int_equal(parse_origin("GET http://a.example/x HTTP/1.1\r\nHost: A.example\r\n"
                                      "\r\n", 80, NULL), SBX_OK);
        assert_string_equal(req.target.host.text, "a.example");
        assert_int_equal(parse_origin("GET http://a.example/x HTTP/1.1\r\n\r\n", 8080, NULL),
                         SBX_OK);
        assert_int_equal(req.target.port, 8080);
        assert_sbx_fails(parse_origin("GET http://a.example/ HTTP/1.1\r\nHost: b.example\r\n"
                                      "\r\n", 80, err), SBX_E_INVALID, "Host header names");
        assert_sbx_fails(parse_origin("GET / HTTP/1.1\r\nHost: a.example\r\nHost: b.example"
                                      "\r\n\r\n", 80, err), SBX_E_INVALID, "two Host");
        assert_sbx_fails(parse_origin("CONNECT a.example:443 HTTP/1.1\r\nHost: a.example\r\n"
                                      "\r\n", 443, err), SBX_E_INVALID, "CONNECT");
        assert_sbx_fails(parse_origin("GET https://a.example/ HTTP/1.1\r\n\r\n", 443, err),
                         SBX_E_INVALID, "neither a path");
        assert_sbx_fails(parse_origin("GET http://u@a.example/ HTTP/1.1\r\n\r\n", 80, err),
                         SBX_E_INVALID, "user information");
        assert_sbx_fails(parse_origin("GET / HTTP/1.1\r\nHost: a_b.example\r\n\r\n", 80,
                                      err), SBX_E_INVALID, "Host header");
        assert_sbx_fails(parse_origin("GET / HTTP/1.1\r\nHost: 127.1\r\n\r\n", 80, err),
                         SBX_E_INVALID, "Host header");
        assert_sbx_fails(parse_origin("GET /#f HTTP/1.1\r\nHost: a\r\n\r\n", 80, err),
                         SBX_E_INVALID, "fragment");
        assert_sbx_fails(parse_origin("GET / HTTP/1.1\r\nHost: a\r\n\r\n", 0, err),
                         SBX_E_INVALID, "port 0");
        /* The strict head rules hold here too. */
        assert_sbx_fails(parse_origin("GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n", 80, err),
                         SBX_E_INVALID, "folded");
        assert_sbx_fails(parse_origin("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
                                      "Transfer-Encoding: chunked\r\n\r\n", 80, err),
                         SBX_E_INVALID, "Content-Length");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_net_http__head_end),
                cmocka_unit_test(test_net_http__connect),
                cmocka_unit_test(test_net_http__forward),
                cmocka_unit_test(test_net_http__malformed),
                cmocka_unit_test(test_net_http__auth),
                cmocka_unit_test(test_net_http__responses),
                cmocka_unit_test(test_net_http__origin_requests),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
