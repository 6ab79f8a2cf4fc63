/*
 * net.h - the net layer's internals (not installed): the allowlist grammar
 * of policy/netrule.h (address literals, classes, hosts, targets, rules:
 * src/policy/netaddr.c, nettarget.c, shared with the profile layer), the
 * route fingerprint (route.c), the HTTP request head (http.c), the TLS
 * ClientHello's server name (sni.c), DNS queries and answers (dns.c), and
 * the egress proxy engine (proxy.c, conn.c, relay.c, resolve.c; its
 * transparent mode: transparent.c).
 * docs/network.md describes all of it.
 *
 * The pure parts (everything above the engine) make no OS calls and are
 * unit-tested in tests/unit/net/.  The engine runs in the supervising
 * process: threads of its own, every fd CLOEXEC, never a fork.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_NET_H
#define SBX_NET_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

#include "policy/netrule.h"

/* --------------------------------------------------------- the upstream */

/* An organisation proxy the engine CONNECTs through instead of dialling;
 * its credential (optional) stays in the supervisor. */
struct sbx__net_upstream {
        struct sbx__net_target target;
        char                  *user;    /* NULL: no Proxy-Authorization */
        char                  *password;
};

/* "host:port" with an optional credential ("user", "password" may be
 * NULL); strings copied.  Free with sbx__net_upstream_clear. */
sbx_code sbx__net_upstream_set(struct sbx__net_upstream *u, const char *hostport,
                               const char *user, const char *password, sbx_error *err);
void sbx__net_upstream_clear(struct sbx__net_upstream *u);

/*
 * The route fingerprint: a SHA-256 hex digest (SBX_FINGERPRINT_SIZE) over
 * the proxy configuration that decides where a connection may go: the
 * canonical rules, sorted, and the upstream's host:port (upstream NULL:
 * direct).  Never a credential.  docs/network.md has the serialization.
 */
void sbx__net_route_fingerprint(const struct sbx__net_rules *rs,
                                const struct sbx__net_upstream *upstream, char *out);

/* ---------------------------------------------------- HTTP request heads */

#define SBX__HTTP_HEADERS_MAX 100

struct sbx__http_span {
        uint32_t off, len;
};

struct sbx__http_header {
        struct sbx__http_span name, value;
};

/* A parsed request head; spans point into the caller's buffer. */
struct sbx__http_request {
        int                     is_connect;
        int                     minor;          /* HTTP/1.<minor> */
        struct sbx__http_span   method;
        struct sbx__http_span   path;           /* origin-form ("/..."), forward requests */
        struct sbx__net_target  target;
        int                     target_ok;      /* target parsed (also when the head is bad) */
        size_t                  nheaders;
        struct sbx__http_header headers[SBX__HTTP_HEADERS_MAX];
        int                     auth;           /* index of Proxy-Authorization, or -1 */
};

/* The length of the head in buf[0..len) up to and including the empty
 * line (CRLF or bare LF line ends), or 0 while it is incomplete. */
size_t sbx__http_head_end(const char *buf, size_t len);
/* Parse the head buf[0..len).  SBX_E_INVALID (say 400) with the reason;
 * SBX_E_UNSUPPORTED for an https:// or other non-http absolute URI. */
sbx_code sbx__http_parse(const char *buf, size_t len, struct sbx__http_request *req,
                         sbx_error *err);
/* 1 when the request carries "Proxy-Authorization: Basic" for user and
 * password, compared in constant time; else 0. */
int sbx__http_auth_ok(const char *buf, const struct sbx__http_request *req,
                      const char *user, const char *password);
/*
 * The head to send the origin for a forward request: origin-form request
 * line, the client's headers without the hop-by-hop ones (Connection and
 * those it names, Keep-Alive, Proxy-*, TE, Trailer, Upgrade) and without
 * Host, then "Host: <target>" and "Connection: close".  Returns the
 * length, or 0 when it does not fit in outsz.
 */
size_t sbx__http_rewrite(const char *buf, const struct sbx__http_request *req, char *out,
                         size_t outsz);
/* A complete response (status line, Content-Type text/plain, length,
 * Connection: close, Proxy-Authenticate for 407, body) into out.  Returns
 * the length (truncating the body to fit). */
size_t sbx__http_response(int status, const char *body, char *out, size_t outsz);
/* "Basic <base64(user:password)>" into out; the length, or 0 if it does
 * not fit. */
size_t sbx__http_basic(const char *user, const char *password, char *out, size_t outsz);

/* Transparent mode (docs/network.md, "Transparent mode"): an HTTP/1
 * request sent straight to an origin.  The same strict head as
 * sbx__http_parse, but the target is origin-form ("/path"), "*", or an
 * absolute http:// URL, never CONNECT; the host comes from the one Host
 * header (and an absolute URL's host must be the same), the port is
 * always `port` (the connection's original destination port).  No Host
 * header: SBX_OK with target_ok 0.  SBX_E_INVALID (say 400) otherwise. */
sbx_code sbx__http_parse_origin(const char *buf, size_t len, uint16_t port,
                                struct sbx__http_request *req, sbx_error *err);

/* ------------------------------------------------------ TLS ClientHello */

#define SBX__TLS_SNI_MAX 255

enum {
        SBX__TLS_BAD  = -1,     /* malformed (why says how) */
        SBX__TLS_OK   = 0,      /* a complete ClientHello */
        SBX__TLS_MORE = 1,      /* a prefix of one: read more */
        SBX__TLS_NOT  = 2       /* not a TLS handshake record */
};

struct sbx__tls_hello {
        size_t      hello_end;          /* bytes of the records the ClientHello used */
        uint16_t    record_version;     /* of the first record */
        uint16_t    version;            /* legacy_version */
        int         has_sni;
        int         has_ech;            /* an encrypted_client_hello extension */
        size_t      sni_len;
        char        sni[SBX__TLS_SNI_MAX + 1];  /* host_name as sent, NUL-terminated */
        const char *why;                /* SBX__TLS_BAD: static text */
};

/* Parse the ClientHello at the start of buf[0..len) (src/net/sni.c).  The
 * handshake message is gathered into scratch (scratch_max bytes: the
 * largest ClientHello accepted, header included).  Returns SBX__TLS_*. */
int sbx__tls_client_hello(const uint8_t *buf, size_t len, uint8_t *scratch, size_t scratch_max,
                          struct sbx__tls_hello *out);

/* ------------------------------------------------------------------ DNS */

#define SBX__DNS_NAME_WIRE   255        /* a name on the wire, root label included */
#define SBX__DNS_ANSWERS_MAX 8          /* answers in one response (< 512 bytes) */
#define SBX__DNS_TTL         5          /* seconds */
#define SBX__DNS_A           1
#define SBX__DNS_AAAA        28
#define SBX__DNS_IN          1

/* RCODEs. */
enum {
        SBX__DNS_NOERROR  = 0,
        SBX__DNS_FORMERR  = 1,
        SBX__DNS_SERVFAIL = 2,
        SBX__DNS_NXDOMAIN = 3,
        SBX__DNS_NOTIMP   = 4,
        SBX__DNS_REFUSED  = 5
};

struct sbx__dns_query {
        uint16_t id, flags;
        int      has_question;
        uint16_t qtype, qclass;
        size_t   wire_len;                      /* of wire, root label included */
        uint8_t  wire[SBX__DNS_NAME_WIRE];      /* the name as sent (case kept) */
        int      name_ok;                       /* every label is letters, digits, '-' */
        char     name[SBX__NET_NAME_MAX + 1];   /* name_ok: the labels joined by '.' */
};

/* Parse one query datagram.  -1: no answer at all (shorter than a header,
 * or a response); else the RCODE to answer with (NOERROR: a question to
 * decide on, q->has_question set). */
int sbx__dns_parse_query(const uint8_t *buf, size_t len, struct sbx__dns_query *q);
/* The response to q: the header (id, opcode and RD echoed, QR and RA set),
 * the question when q has one, then up to SBX__DNS_ANSWERS_MAX A/AAAA
 * records of addrs (each of its own family) with ttl.  The length, or 0
 * when outsz cannot hold the header and question. */
size_t sbx__dns_response(const struct sbx__dns_query *q, int rcode,
                         const struct sbx__net_addr *addrs, size_t n, uint32_t ttl,
                         uint8_t *out, size_t outsz);
/* Does some name or wildcard rule admit the name h, on any port? */
int sbx__dns_name_admitted(const struct sbx__net_rules *rs, const struct sbx__net_host *h);
/* Would a connection to h on some port the rules admit it on be dialled
 * at a (sbx__net_rules_address_ok for that port)?  1 or 0. */
int sbx__dns_address_ok(const struct sbx__net_rules *rs, const struct sbx__net_host *h,
                        const struct sbx__net_addr *a);

/* ------------------------------------------------------------ the engine */

#define SBX__PROXY_USER  "sbx"          /* the fixed Proxy-Authorization user */
#define SBX__PROXY_TOKEN_SIZE 65        /* 256 random bits in hex + NUL */

/* A resolver: up to max addresses of host into out; 0 or -errno
 * (-ENOENT: no such name).  May block; the engine bounds it. */
typedef int (*sbx__net_resolve_fn)(const char *host, struct sbx__net_addr *out, size_t max,
                                   size_t *n, void *userdata);
/* The default resolver: getaddrinfo, IPv4-mapped answers as IPv4,
 * duplicates dropped, userdata unused. */
int sbx__net_getaddrinfo(const char *host, struct sbx__net_addr *out, size_t max, size_t *n,
                         void *userdata);

/* The original destination of an accepted, redirected connection fd into
 * *addr and *port: 0 or -errno.  The default is getsockopt SO_ORIGINAL_DST
 * (IPv4) / IP6T_SO_ORIGINAL_DST (IPv6). */
typedef int (*sbx__net_origdst_fn)(int fd, struct sbx__net_addr *addr, uint16_t *port,
                                   void *userdata);
int sbx__net_original_dst(int fd, struct sbx__net_addr *addr, uint16_t *port, void *userdata);

/* Engine limits; zero fields take the defaults in brackets. */
struct sbx__proxy_limits {
        uint32_t max_conns;             /* open client connections, engine-wide [256] */
        uint32_t max_conns_per_exec;    /* per execution [64] */
        uint32_t head_max;              /* request head bytes [32768] */
        uint32_t request_timeout_ms;    /* the head must arrive within [10000] */
        uint32_t resolve_timeout_ms;    /* one name [10000] */
        uint32_t connect_timeout_ms;    /* the dial (and the upstream's answer) [10000] */
        uint32_t idle_timeout_ms;       /* a connection with no traffic either way [300000] */
        uint32_t events_max;            /* refusals kept per execution [256] */
        uint32_t resolvers;             /* resolver threads [4] */
        uint32_t relay_splice;          /* 1: relay with splice(2) through a pipe, not
                                         * a user-space buffer (bench/proxy compares
                                         * them; the copy measured faster) [0] */
        sbx__net_resolve_fn resolve;    /* NULL: getaddrinfo */
        void    *resolve_userdata;
        /* Transparent mode: */
        uint32_t peek_timeout_ms;       /* the first bytes must arrive within, or the
                                         * target is the original address [1000] */
        sbx__net_origdst_fn origdst;    /* NULL: SO_ORIGINAL_DST (tests set it) */
        void    *origdst_userdata;
};

/* Why a request was refused or failed (an event's reason). */
enum sbx__net_reason {
        SBX__NET_R_MALFORMED   = 1,     /* 400 (431 for a head too large) */
        SBX__NET_R_AUTH        = 2,     /* 407: missing or wrong credential */
        SBX__NET_R_NOT_ALLOWED = 3,     /* 403: no rule admits the target */
        SBX__NET_R_ADDRESS     = 4,     /* 403: every address of it is of a refused class */
        SBX__NET_R_RESOLVE     = 5,     /* 502: no address, or the lookup timed out */
        SBX__NET_R_DIAL        = 6,     /* 502: no address answered */
        SBX__NET_R_UPSTREAM    = 7,     /* 502: the upstream proxy failed or refused */
        SBX__NET_R_LIMIT       = 8,     /* 503: too many connections */
        SBX__NET_R_TIMEOUT     = 9,     /* 408: the request head did not arrive in time */
        SBX__NET_R_UNSUPPORTED = 10,    /* 400: https:// and other absolute URIs */
        SBX__NET_R_DNS         = 11,    /* DNS: no rule admits the name (NXDOMAIN) */
        SBX__NET_R_ORIGINAL    = 12     /* transparent: no original destination, or
                                         * the client dialled the listener itself */
};

/* Where a refusal happened (an event's via). */
enum sbx__net_via {
        SBX__NET_VIA_PROXY       = 0,   /* the proxy listener (HTTP proxy, CONNECT) */
        SBX__NET_VIA_TRANSPARENT = 1,   /* a redirected TCP connection */
        SBX__NET_VIA_DNS         = 2    /* the DNS answerer */
};
const char *sbx__net_reason_name(int reason);

/* One refusal, as recorded per execution. */
struct sbx__net_event {
        int64_t  time_ms;               /* CLOCK_REALTIME, ms */
        int32_t  reason;                /* enum sbx__net_reason */
        int32_t  status;                /* the HTTP status sent (0: none; DNS: the
                                         * RCODE) */
        int32_t  via;                   /* enum sbx__net_via */
        int32_t  addr_class;            /* SBX__NET_R_ADDRESS: the refused class */
        uint16_t port;                  /* 0 when the request had no target */
        char     host[SBX__NET_NAME_MAX + 1];   /* normalised; "" when none */
        char     addr[SBX__NET_ADDR_TEXT];      /* SBX__NET_R_ADDRESS: the address */
};

struct sbx__proxy_engine;
struct sbx__proxy_exec;

/* Start an engine: its accept thread and resolver threads.  limits NULL:
 * the defaults. */
sbx_code sbx__proxy_engine_new(const struct sbx__proxy_limits *limits,
                               struct sbx__proxy_engine **out, sbx_error *err);
/* The global stop: cancels every connection of every execution, releases
 * the executions still open, joins every thread, frees.  NULL-safe.  It
 * may wait for a resolver thread still inside getaddrinfo (at most the C
 * library's own resolver timeout). */
void sbx__proxy_engine_free(struct sbx__proxy_engine *e);

/* One execution's configuration (copied). */
struct sbx__proxy_config {
        const struct sbx__net_rules    *rules;          /* NULL: nothing allowed */
        const struct sbx__net_upstream *upstream;       /* NULL: dial directly */
        /* The credential, drawn by sbx__proxy_token_new before the child's
         * environment was made; NULL: the execution draws its own. */
        const char                     *token;
};

/* A fresh credential (256 random bits in hex) into out
 * (SBX__PROXY_TOKEN_SIZE).  0 or -errno. */
int sbx__proxy_token_new(char *out);

/*
 * Serve one execution on listen_fd, a listening stream socket (duplicated;
 * the caller keeps its own, and the shared file description is set
 * non-blocking).  A fresh credential is drawn from getrandom.  Thread-safe.
 */
sbx_code sbx__proxy_exec_new(struct sbx__proxy_engine *e, const struct sbx__proxy_config *cfg,
                             int listen_fd, struct sbx__proxy_exec **out, sbx_error *err);
/* The credential's password (the user is SBX__PROXY_USER); borrowed until
 * release.  Never log it. */
const char *sbx__proxy_exec_token(const struct sbx__proxy_exec *x);
/* "http://sbx:<token>@<listen>" into buf, listen being what the child
 * dials ("127.0.0.1:3128").  SBX_E_RANGE when it does not fit. */
sbx_code sbx__proxy_exec_url(const struct sbx__proxy_exec *x, const char *listen, char *buf,
                             size_t bufsz, sbx_error *err);
/* Copy up to max of the execution's events, oldest first, into out;
 * returns how many, *dropped (may be NULL) the events not kept. */
size_t sbx__proxy_exec_events(struct sbx__proxy_exec *x, struct sbx__net_event *out,
                              size_t max, uint64_t *dropped);
/* Open client connections of the execution now. */
uint32_t sbx__proxy_exec_active(struct sbx__proxy_exec *x);
/*
 * Transparent mode: x also serves tcp_listen_fd, a listening stream socket
 * to which the command's namespace redirects its outbound TCP, and
 * dns_fd, a UDP socket to which it redirects DNS (either may be -1, not
 * both; each duplicated, CLOEXEC, and the shared file description set
 * non-blocking; both end with the execution).  Call it again for a second
 * pair (IPv4 and IPv6): up to SBX__PROXY_TRANSPARENT_MAX of each.  Same
 * rules, upstream, events and release as the proxy listener; no
 * credential.
 * SBX_E_INVALID (not a listening TCP / a UDP socket), SBX_E_RANGE (too
 * many), SBX_E_CLOSED (released or stopping), SBX_E_NOMEM,
 * SBX_E_INTERNAL.  Thread-safe.
 */
#define SBX__PROXY_TRANSPARENT_MAX 4
sbx_code sbx__proxy_exec_transparent(struct sbx__proxy_exec *x, int tcp_listen_fd, int dns_fd,
                                     sbx_error *err);
/* Stop listening, cut every request and tunnel of this execution (others
 * go on), wait for its threads to let go, free.  NULL-safe. */
void sbx__proxy_exec_release(struct sbx__proxy_exec *x);

#endif /* SBX_NET_H */
