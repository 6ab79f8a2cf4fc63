/*
 * net.h - the net layer's internals (not installed): address literals and
 * their classes (addr.c), host names, targets and allowlist rules
 * (target.c), the route fingerprint (route.c), the HTTP request head
 * (http.c), and the egress proxy engine (proxy.c, relay.c, resolve.c).
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

/* ------------------------------------------------------------ addresses */

/* An IPv4 (family 4, b[0..4)) or IPv6 (family 6, b[0..16)) address.  An
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) is always held as the IPv4
 * address it maps: one address, one spelling. */
struct sbx__net_addr {
        uint8_t family;                 /* 4 or 6 */
        uint8_t b[16];
};

/* The longest formatted address ("ffff:...:255.255.255.255" is 45) + NUL. */
#define SBX__NET_ADDR_TEXT 46

/*
 * Address classes, most specific first (169.254.169.254 is METADATA, not
 * LINK_LOCAL).  A proxy dials a PUBLIC address of an admitted target; any
 * other class only when the matching rule allows that class or an
 * address rule names that very address.  UNSPECIFIED and MULTICAST are
 * never dialled.  Values are bit numbers in class masks.
 */
enum sbx__net_class {
        SBX__NET_PUBLIC      = 0,
        SBX__NET_LOOPBACK    = 1,       /* 127/8, ::1 */
        SBX__NET_PRIVATE     = 2,       /* 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10 */
        SBX__NET_LINK_LOCAL  = 3,       /* 169.254/16, fe80::/10 */
        SBX__NET_CGNAT       = 4,       /* 100.64/10 */
        SBX__NET_METADATA    = 5,       /* cloud instance metadata endpoints */
        SBX__NET_RESERVED    = 6,       /* documentation, benchmarking, 240/4, ... */
        SBX__NET_UNSPECIFIED = 7,       /* 0/8, :: (a connect to 0.0.0.0 is loopback) */
        SBX__NET_MULTICAST   = 8,       /* 224/4, ff00::/8, 255.255.255.255 */
        SBX__NET_CLASS_N     = 9
};
#define SBX__NET_CLASS_BIT(c) (1u << (unsigned) (c))
/* The classes a rule may name ("+loopback"): all but PUBLIC (always
 * allowed), UNSPECIFIED and MULTICAST (never). */
#define SBX__NET_CLASSES_NAMEABLE \
        (SBX__NET_CLASS_BIT(SBX__NET_LOOPBACK) | SBX__NET_CLASS_BIT(SBX__NET_PRIVATE) | \
         SBX__NET_CLASS_BIT(SBX__NET_LINK_LOCAL) | SBX__NET_CLASS_BIT(SBX__NET_CGNAT) | \
         SBX__NET_CLASS_BIT(SBX__NET_METADATA) | SBX__NET_CLASS_BIT(SBX__NET_RESERVED))

/* Parse exactly s[0..n): a dotted quad (four decimal parts, no leading
 * zeros) or an RFC 4291 IPv6 address (no zone id, no brackets).  0, or -1
 * when it is not an address literal. */
int sbx__net_addr_parse(const char *s, size_t n, struct sbx__net_addr *out);
/* The canonical text (dotted quad; RFC 5952 for IPv6) into buf, which
 * holds SBX__NET_ADDR_TEXT.  Returns buf. */
char *sbx__net_addr_format(const struct sbx__net_addr *a, char *buf);
int sbx__net_addr_equal(const struct sbx__net_addr *a, const struct sbx__net_addr *b);
/* The class of an address.  NAT64 (64:ff9b::/96) and 6to4 (2002::/16)
 * addresses are the class of the IPv4 address they embed. */
enum sbx__net_class sbx__net_addr_class(const struct sbx__net_addr *a);
/* "loopback", "private", "link-local", "cgnat", "metadata", "reserved",
 * "unspecified", "multicast", "public"; never NULL. */
const char *sbx__net_class_name(int cls);
/* The nameable class named s[0..n), or -1. */
int sbx__net_class_lookup(const char *s, size_t n);

/* ---------------------------------------------------- hosts and targets */

#define SBX__NET_NAME_MAX 253           /* a host name without its trailing dot */

/* A normalised host: a name (lower case, no trailing dot, LDH labels) or
 * an address literal.  text is the canonical spelling either way (an
 * IPv6 literal without brackets). */
struct sbx__net_host {
        int                  is_addr;
        struct sbx__net_addr addr;      /* is_addr */
        char                 text[SBX__NET_NAME_MAX + 1];
};

/* Normalise s[0..n) as a host: "[v6]" (brackets required for IPv6 when
 * `bracketed`, refused otherwise), a dotted quad, or a name.  A name is
 * ASCII letters, digits and hyphens in labels of 1..63 (no hyphen first
 * or last), at most 253 in all, one trailing dot dropped; its last label
 * is not numeric ("127.1", "0x7f.1" and "2130706433" are refused: the C
 * library would read them as IPv4).  Non-ASCII is refused; "xn--" labels
 * are plain LDH.  `what` starts the error message. */
sbx_code sbx__net_host_parse(const char *what, const char *s, size_t n, int bracketed,
                             struct sbx__net_host *out, sbx_error *err);

/* A request target: a host and a port (1..65535). */
struct sbx__net_target {
        struct sbx__net_host host;
        uint16_t             port;
};

/* Parse an authority "host[:port]" / "[v6][:port]" from s[0..n).  Without
 * a port, default_port is used, and 0 there means the port is required
 * (CONNECT). */
sbx_code sbx__net_authority_parse(const char *what, const char *s, size_t n,
                                  uint16_t default_port, struct sbx__net_target *out,
                                  sbx_error *err);
/* "host:port" or "[v6]:port" into buf (SBX__NET_TARGET_TEXT). */
#define SBX__NET_TARGET_TEXT (SBX__NET_NAME_MAX + 1 + 2 + 6)
char *sbx__net_target_format(const struct sbx__net_target *t, char *buf);
/*
 * The normalised spelling of a "host:port" target, the form a
 * network.proxy-target.v1 grant binds: the port is required, the host
 * normalised as above.  SBX_E_INVALID naming the problem, SBX_E_RANGE
 * when outsz < SBX__NET_TARGET_TEXT.
 */
sbx_code sbx__net_target_normalize(const char *in, char *out, size_t outsz, sbx_error *err);

/* ------------------------------------------------------- allowlist rules */

enum sbx__net_rule_kind {
        SBX__NET_RULE_NAME     = 1,     /* exactly this name */
        SBX__NET_RULE_WILDCARD = 2,     /* "*.suffix": names below suffix, not suffix */
        SBX__NET_RULE_ADDR     = 3      /* this address literal */
};

/*
 * One allowlist entry (docs/network.md, "The allowlist"):
 *   HOST[:PORT][+CLASS...]   *.HOST[:PORT][+CLASS...]
 *   A.B.C.D[:PORT]   [V6][:PORT]   V6 (bare, no port)
 * No port: every port.  +CLASS (loopback, private, link-local, cgnat,
 * metadata, reserved) lets the names of that entry resolve to addresses
 * of that class.
 */
struct sbx__net_rule {
        int                  kind;      /* enum sbx__net_rule_kind */
        uint16_t             port;      /* 0: any port */
        uint32_t             classes;   /* SBX__NET_CLASS_BITs, name and wildcard rules */
        struct sbx__net_host host;      /* wildcard: the suffix */
};

#define SBX__NET_RULES_MAX 4096
#define SBX__NET_RULE_TEXT (2 + SBX__NET_NAME_MAX + 2 + 6 + 64)

sbx_code sbx__net_rule_parse(const char *entry, struct sbx__net_rule *out, sbx_error *err);
/* The canonical spelling (what the fingerprint hashes) into buf
 * (SBX__NET_RULE_TEXT). */
char *sbx__net_rule_format(const struct sbx__net_rule *r, char *buf);

/* A set of rules, in the order added, duplicates dropped. */
struct sbx__net_rules {
        struct sbx__net_rule *v;
        size_t                n, cap;
};
#define SBX__NET_RULES_INIT { NULL, 0, 0 }

/* Parse and add one entry.  SBX_E_INVALID for a bad entry, SBX_E_RANGE
 * past SBX__NET_RULES_MAX, SBX_E_NOMEM. */
sbx_code sbx__net_rules_add(struct sbx__net_rules *rs, const char *entry, sbx_error *err);
sbx_code sbx__net_rules_copy(const struct sbx__net_rules *from, struct sbx__net_rules *to,
                             sbx_error *err);
void sbx__net_rules_clear(struct sbx__net_rules *rs);

/*
 * Is the target admitted?  A name target by a name rule for it or a
 * wildcard rule above it, an address target by an address rule for that
 * address; the port must match in both.  Returns 1 and sets *classes to
 * the union of the extra classes of every matching rule, else 0.
 */
int sbx__net_rules_admit(const struct sbx__net_rules *rs, const struct sbx__net_target *t,
                         uint32_t *classes);
/*
 * May an admitted target (its rules' classes) be dialled at addr?  A
 * public address, an address of a class in `classes`, or one an address
 * rule names for this port: 1.  Otherwise 0 (and never for UNSPECIFIED
 * or MULTICAST).
 */
int sbx__net_rules_address_ok(const struct sbx__net_rules *rs, uint32_t classes,
                              const struct sbx__net_addr *addr, uint16_t port);

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
        SBX__NET_R_UNSUPPORTED = 10     /* 400: https:// and other absolute URIs */
};
const char *sbx__net_reason_name(int reason);

/* One refusal, as recorded per execution. */
struct sbx__net_event {
        int64_t  time_ms;               /* CLOCK_REALTIME, ms */
        int32_t  reason;                /* enum sbx__net_reason */
        int32_t  status;                /* the HTTP status sent */
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
};

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
/* Stop listening, cut every request and tunnel of this execution (others
 * go on), wait for its threads to let go, free.  NULL-safe. */
void sbx__proxy_exec_release(struct sbx__proxy_exec *x);

#endif /* SBX_NET_H */
