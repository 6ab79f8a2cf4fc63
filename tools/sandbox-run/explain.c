/*
 * explain.c - what sandbox-run prints of its own: one-line messages on
 * stderr (JSON with --json) and --explain, with where each value came
 * from (a flag, a line of a policy file, or the default).
 *
 * JSON is built with json-c (which the library links for policy files):
 * bytes of a string that are not valid UTF-8 become U+FFFD first, so the
 * output is always valid JSON, and an allocation that fails anywhere
 * prints nothing of the object but the fixed no-memory error.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "cli.h"

int json_mode;

/* ------------------------------------------------------------------ JSON */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
        size_t len, i;
        uint32_t cp;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xC2 && s[0] <= 0xDF) {
                len = 2;
                cp = s[0] & 0x1F;
        } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
                len = 3;
                cp = s[0] & 0x0F;
        } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
                len = 4;
                cp = s[0] & 0x07;
        } else {
                return 0;
        }
        if (n < len)
                return 0;
        for (i = 1; i < len; i++) {
                if ((s[i] & 0xC0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3F);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
                return 0;
        return len;
}

static int json_oom;             /* 1 once a json-c allocation failed */

static struct json_object *jcheck(struct json_object *o)
{
        if (o == NULL)
                json_oom = 1;
        return o;
}

struct json_object *jobj(void)
{
        return jcheck(json_object_new_object());
}

struct json_object *jarr(void)
{
        return jcheck(json_object_new_array());
}

struct json_object *jint(int64_t v)
{
        return jcheck(json_object_new_int64(v));
}

struct json_object *ju64(uint64_t v)
{
        return jcheck(v <= INT64_MAX ? json_object_new_int64((int64_t) v)
                                     : json_object_new_uint64(v));
}

struct json_object *jbool(int v)
{
        return jcheck(json_object_new_boolean(v != 0));
}

/* str with every byte that is not part of valid UTF-8 replaced by U+FFFD;
 * NULL for a JSON null. */
struct json_object *jstr(const char *str)
{
        const unsigned char *s = (const unsigned char *) str;
        struct json_object *o;
        size_t n, i = 0, k = 0;
        char *buf;

        if (str == NULL)
                return NULL;
        n = strlen(str);
        buf = malloc(3 * n + 1);
        if (buf == NULL) {
                json_oom = 1;
                return NULL;
        }
        while (i < n) {
                size_t l = utf8_len(s + i, n - i);

                if (l == 0) {
                        memcpy(buf + k, "\xef\xbf\xbd", 3);
                        k += 3;
                        i++;
                        continue;
                }
                memcpy(buf + k, s + i, l);
                k += l;
                i += l;
        }
        o = json_object_new_string_len(buf, (int) k);
        free(buf);
        return jcheck(o);
}

/* obj[key] = v (v NULL: a JSON null, or a failed allocation jcheck
 * recorded). */
void jset(struct json_object *obj, const char *key, struct json_object *v)
{
        if (obj == NULL || json_object_object_add(obj, key, v) != 0) {
                json_object_put(v);
                json_oom = 1;
        }
}

void jpush(struct json_object *arr, struct json_object *v)
{
        if (arr == NULL || v == NULL || json_object_array_add(arr, v) != 0) {
                json_object_put(v);
                json_oom = 1;
        }
}

/* One line of JSON on f, and obj released.  Nothing of it when an
 * allocation failed: the no-memory error instead, and exit. */
void json_emit(FILE *f, struct json_object *obj)
{
        const char *text = NULL;

        if (!json_oom && obj != NULL)
                text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE);
        if (text == NULL) {
                json_object_put(obj);
                fputs("{\"error\":{\"code\":\"SBX_E_NOMEM\",\"message\":\"no memory for the JSON output\"}}\n",
                      stderr);
                fflush(stderr);
                exit(EXIT_FAIL);
        }
        fputs(text, f);
        fputc('\n', f);
        fflush(f);
        json_object_put(obj);
}

/* -------------------------------------------------------------- messages */

/* raw as one printable line in out (size > 4), as the library writes its
 * messages: well-formed UTF-8 that prints is kept; a newline, tab or CR
 * becomes \n \t \r, and any other control byte (an escape sequence), a
 * C1 control, a separator or bidirectional override and a byte that is
 * not UTF-8 \xNN, so a command name or path can neither forge a line nor
 * drive the terminal. */
void printable_line(const char *raw, char *out, size_t size)
{
        static const char hex[] = "0123456789abcdef";
        const unsigned char *s = (const unsigned char *) raw;
        size_t n = strlen(raw), i = 0, o = 0;

        while (i < n) {
                size_t l = utf8_len(s + i, n - i);

                if (l == 2 && s[i] == 0xC2 && s[i + 1] < 0xA0)
                        l = 0;                  /* U+0080 .. U+009F */
                if (l == 1 && (s[i] < 0x20 || s[i] == 0x7F))
                        l = 0;
                if (l == 3 && s[i] == 0xE2 &&
                    ((s[i + 1] == 0x80 && s[i + 2] >= 0xA8 && s[i + 2] <= 0xAE) ||
                     (s[i + 1] == 0x81 && s[i + 2] >= 0xA6 && s[i + 2] <= 0xA9)))
                        l = 0;                  /* U+2028 .. U+202E, U+2066 .. U+2069 */
                if (l > 0) {
                        if (o + l >= size)
                                break;
                        memcpy(out + o, s + i, l);
                        o += l;
                        i += l;
                        continue;
                }
                if (o + 4 >= size)
                        break;
                out[o++] = '\\';
                if (s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
                        out[o++] = s[i] == '\n' ? 'n' : s[i] == '\t' ? 't' : 'r';
                } else {
                        out[o++] = 'x';
                        out[o++] = hex[s[i] >> 4];
                        out[o++] = hex[s[i] & 0xF];
                }
                i++;
        }
        out[o] = '\0';
}

void say(int32_t code, const char *fmt, ...)
{
        char raw[1024], msg[1024];
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(raw, sizeof(raw), fmt, ap);
        va_end(ap);
        printable_line(raw, msg, sizeof(msg));
        if (json_mode) {
                struct json_object *o = jobj(), *e = jobj();

                jset(e, "code", jstr(sbx_code_name(code)));
                jset(e, "message", jstr(msg));
                jset(o, "error", e);
                json_emit(stderr, o);
        } else {
                fprintf(stderr, "sandbox-run: %s\n", msg);
        }
        fflush(stderr);
}

void die(int status, int32_t code, const char *msg)
{
        say(code, "%s", msg);
        exit(status);
}

void die_err(const sbx_error *e)
{
        die(EXIT_FAIL, e->code, e->message[0] != '\0' ? e->message : sbx_strerror(e->code));
}

/* ------------------------------------------------------------- explain */

static const char *enforcement_name(int32_t e)
{
        switch (e) {
        case SBX_ENFORCEMENT_FULL:
                return "full";
        case SBX_ENFORCEMENT_PARTIAL:
                return "partial";
        default:
                return "none";
        }
}

static void print_guarantees(FILE *f, uint32_t mask)
{
        uint32_t bit;
        int first = 1;

        for (bit = 1; bit != 0 && bit <= SBX_G_ALL; bit <<= 1) {
                if (!(mask & bit))
                        continue;
                fprintf(f, "%s%s", first ? "" : " ", sbx_guarantee_name(bit));
                first = 0;
        }
        if (first)
                fputs("none", f);
}

static struct json_object *json_guarantees(uint32_t mask)
{
        struct json_object *a = jarr();
        uint32_t bit;

        for (bit = 1; bit != 0 && bit <= SBX_G_ALL; bit <<= 1)
                if (mask & bit)
                        jpush(a, jstr(sbx_guarantee_name(bit)));
        return a;
}

/* A shell-readable rendering of one argument. */
void print_shell_word(FILE *f, const char *s)
{
        const char *p;
        int plain = s[0] != '\0';

        for (p = s; *p != '\0'; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || strchr("/-_.:=,+@%", *p) != NULL))
                        plain = 0;
        if (plain) {
                fputs(s, f);
                return;
        }
        fputc('\'', f);
        for (p = s; *p != '\0'; p++) {
                if (*p == '\'')
                        fputs("'\\''", f);
                else
                        fputc(*p, f);
        }
        fputc('\'', f);
}

/* What each way of enforcing a limit means, for --explain. */
static const char *limit_kind_text(int32_t kind)
{
        switch (kind) {
        case SBX_LIMIT_CGROUP:
                return "one total for the whole process tree";
        case SBX_LIMIT_PER_PROCESS:
                return "RLIMIT_AS, each process on its own: N processes may use N times it";
        case SBX_LIMIT_PER_USER:
                return "RLIMIT_NPROC, the kernel's count of the user's processes";
        default:
                return "not applied";
        }
}

/* One limit: "memory-limit: 1048576 bytes, cgroup (...)". */
static struct json_object *json_limit(uint64_t asked, const struct explain *x, int32_t kind)
{
        struct json_object *o;

        if (asked == 0)
                return NULL;
        o = jobj();
        jset(o, "max", ju64(asked));
        jset(o, "enforcement", x->limits_known ? jstr(sbx_limit_kind_name(kind)) : NULL);
        return o;
}

static void print_limit(FILE *f, const char *name, uint64_t asked, const char *unit,
                        const struct explain *x, int32_t kind)
{
        fprintf(f, "%s-limit: ", name);
        if (asked == 0)
                fputs("none\n", f);
        else if (!x->limits_known)
                fprintf(f, "%" PRIu64 "%s, enforcement unknown (the sandbox could not start)\n",
                        asked, unit);
        else
                fprintf(f, "%" PRIu64 "%s, %s (%s)\n", asked, unit, sbx_limit_kind_name(kind),
                        limit_kind_text(kind));
}

/* The profile's force_workspace, accept_unprotected_git and unix_sockets
 * (text lines on f, or members of j with --json). */
static void print_v2_fields(FILE *f, struct json_object *j, const struct explain *x)
{
        const struct opts *o = x->o;
        sbx_profile_config c = SBX_PROFILE_CONFIG_INIT;
        size_t i, n;

        if (x->profile == NULL || sbx_profile_config_get(x->profile, &c, NULL) != SBX_OK)
                c = (sbx_profile_config) SBX_PROFILE_CONFIG_INIT;
        if (json_mode) {
                struct json_object *socks = jarr(), *tools = jarr();

                jset(j, "force_workspace", jbool(c.force_workspace));
                jset(j, "accept_unprotected_git", jbool(c.accept_unprotected_git));
                for (i = 0; i < c.n_unix_sockets; i++)
                        jpush(socks, jstr(c.unix_sockets[i]));
                jset(j, "unix_sockets", socks);
                for (i = 0; i < o->n_extra; i++)
                        if (o->extra[i].toolchain)
                                jpush(tools, jstr(o->extra[i].path));
                jset(j, "toolchains", tools);
                return;
        }
        fprintf(f, "force-workspace: %s\n", c.force_workspace ? "yes" : "no");
        fprintf(f, "accept-unprotected-git: %s\n", c.accept_unprotected_git ? "yes" : "no");
        if (c.workspace_write == SBX_ACCESS_ALLOW)
                fputs("git: the repositories are read-only: status, diff, log, show, blame and "
                      "grep work; add, commit, checkout, stash, fetch, init and clone do not; "
                      "no new .git or HEAD can be created (docs/git.md)\n", f);
        fputs("env-set:", f);
        for (i = 0; i < o->n_env; i++)
                fprintf(f, " %.*s", (int) strcspn(o->env_set[i], "="), o->env_set[i]);
        fputs(o->n_env == 0 ? " none\n" : " (values not shown)\n", f);
        fputs("toolchains:", f);
        for (i = 0, n = 0; i < o->n_extra; i++)
                if (o->extra[i].toolchain) {
                        fputc(' ', f);
                        print_shell_word(f, o->extra[i].path);
                        n++;
                }
        fputs(n == 0 ? " none\n" : " (read-only; --no-toolchains hides them)\n", f);
        fputs("unix-sockets:", f);
        for (i = 0; i < c.n_unix_sockets; i++) {
                fputc(' ', f);
                print_shell_word(f, c.unix_sockets[i]);
        }
        fputs(c.n_unix_sockets == 0 ? " none\n" : "\n", f);
}

const char *origin_text(const struct origin *o, const char *dflt, char *buf, size_t sz)
{
        if (o->flag != NULL)
                return o->flag;
        if (o->pf == NULL)
                return dflt;
        if (o->line > 0)
                (void) snprintf(buf, sz, "%s:%u", sbx_policy_file_name(o->pf), (unsigned) o->line);
        else
                (void) snprintf(buf, sz, "%s", sbx_policy_file_name(o->pf));
        return buf;
}

/* One "sources" entry: "  key = value (origin)" on f, or an object in
 * list with --json. */
static void source(FILE *f, struct json_object *list, const char *key, const char *value,
                   const struct origin *o, const char *dflt)
{
        char buf[SBX_PATH_MAX + 32];
        const char *from = origin_text(o, dflt, buf, sizeof(buf));

        if (json_mode) {
                struct json_object *e = jobj();

                jset(e, "key", jstr(key));
                jset(e, "value", jstr(value));
                jset(e, "from", jstr(from));
                jpush(list, e);
        } else {
                fprintf(f, "  %s = ", key);
                print_shell_word(f, value);
                fprintf(f, " (%s)\n", from);
        }
}

static const char *u64_text(uint64_t v, char *buf, size_t sz)
{
        if (v == 0)
                return "none";
        (void) snprintf(buf, sz, "%" PRIu64, v);
        return buf;
}

/* The policy files read, the allowlist they hold, and where each value
 * came from (text lines on f, or members of j with --json). */
static void print_policy(FILE *f, struct json_object *j, const struct explain *x)
{
        static const struct origin none = { NULL, NULL, 0 };
        const struct opts *o = x->o;
        struct json_object *list = NULL;
        char num[32];
        size_t i;

        if (json_mode) {
                struct json_object *files = jarr(), *hosts = jarr();

                for (i = 0; i < o->n_files; i++) {
                        struct json_object *e = jobj();

                        jset(e, "path", jstr(sbx_policy_file_name(o->files[i].pf)));
                        jset(e, "kind", jstr(o->files[i].kind));
                        jpush(files, e);
                }
                jset(j, "policy_files", files);
                for (i = 0; i < o->n_hosts; i++)
                        jpush(hosts, jstr(o->allow_hosts[i]));
                jset(j, "allow_hosts", hosts);
                jset(j, "allow_hosts_enforced", jbool(o->n_hosts > 0));
                if (o->n_hosts > 0)
                        jset(j, "egress", jstr("proxy,transparent-where-available"));
                list = jarr();
        } else {
                fputs("policy:", f);
                for (i = 0; i < o->n_files; i++) {
                        fputs(i > 0 ? ", " : " ", f);
                        print_shell_word(f, sbx_policy_file_name(o->files[i].pf));
                        fprintf(f, " (%s)", o->files[i].kind);
                }
                if (o->n_files == 0)
                        fputs(o->no_policy ? " none (--no-policy)" : " none", f);
                fputs("\nallow-hosts:", f);
                for (i = 0; i < o->n_hosts; i++) {
                        fputc(' ', f);
                        print_shell_word(f, o->allow_hosts[i]);
                }
                fputs(o->n_hosts == 0 ? " none\n"
                      : "\negress: the egress proxy in the sandbox's own network, named by "
                        "http_proxy/https_proxy/ALL_PROXY, and transparent where the kernel "
                        "allows (every other TCP connection and DNS query redirected to the "
                        "same checks by TLS server name, HTTP Host or address; otherwise "
                        "proxy-only: a tool that ignores the proxy variables reaches nothing): "
                        "only these targets; a name resolving to a loopback, private, "
                        "link-local, CGNAT or metadata address is refused unless an entry "
                        "names that address or a +CLASS\n", f);
                fputs("sources:\n", f);
        }
        source(f, list, "mode", sbx_mode_name(o->mode), &o->mode_from, "default");
        source(f, list, "workspace", x->ws, &o->workspace_from, "the current directory");
        source(f, list, "network", sbx_access_name(x->network), &o->network_from,
               o->mode == SBX_MODE_DANGER_FULL_ACCESS ? "the mode" : "default");
        source(f, list, "backend", o->backend >= 0 ? sbx_backend_name(o->backend) : "auto",
               &o->backend_from, "default");
        source(f, list, "memory", u64_text(o->memory, num, sizeof(num)), &o->memory_from,
               "default");
        source(f, list, "pids", u64_text(o->pids, num, sizeof(num)), &o->pids_from,
               "default");
        source(f, list, "timeout-ms", u64_text(o->timeout_ms, num, sizeof(num)),
               &o->timeout_from, "default");
        source(f, list, "force-workspace", o->force_workspace ? "yes" : "no",
               &o->force_workspace_from, "default");
        source(f, list, "accept-unprotected-git", o->accept_unprotected_git ? "yes" : "no",
               &o->accept_unprotected_git_from, "default");
        for (i = 0; i < o->n_extra; i++)
                source(f, list, o->extra[i].write ? "write-root" : "read-root",
                       o->extra[i].path, o->extra[i].toolchain ? &none : &o->extra[i].from,
                       "toolchains");
        for (i = 0; i < o->n_unix; i++)
                source(f, list, "unix-socket", o->unix_sockets[i], &o->unix_from[i], "");
        for (i = 0; i < o->n_env; i++) {
                char name[256];

                (void) snprintf(name, sizeof(name), "%.*s",
                                (int) strcspn(o->env_set[i], "="), o->env_set[i]);
                source(f, list, "env", name, &o->env_from[i], "");
        }
        for (i = 0; i < o->n_hosts; i++)
                source(f, list, "allow-host", o->allow_hosts[i], &o->host_from[i], "");
        if (json_mode)
                jset(j, "sources", list);
}

static void explain_json(const struct explain *x)
{
        struct json_object *j = jobj(), *lim = jobj(), *plan = jarr(), *argv = NULL;
        const char *line, *nl;
        size_t i;

        jset(j, "mode", jstr(sbx_mode_name(x->o->mode)));
        jset(j, "workspace", jstr(x->ws));
        jset(j, "network", jstr(sbx_access_name(x->network)));
        print_v2_fields(NULL, j, x);
        print_policy(NULL, j, x);
        jset(j, "backend", jstr(x->backend));
        jset(j, "enforcement", jstr(enforcement_name(x->enforcement)));
        jset(j, "required", json_guarantees(x->required));
        jset(j, "achieved", json_guarantees(x->achieved));
        if (x->argv != NULL) {
                argv = jarr();
                for (i = 0; x->argv[i] != NULL; i++)
                        jpush(argv, jstr(x->argv[i]));
        }
        jset(j, "argv", argv);
        jset(lim, "memory", json_limit(x->o->memory, x, x->limits.memory_kind));
        jset(lim, "pids", json_limit(x->o->pids, x, x->limits.pids_kind));
        jset(j, "limits", lim);
        jset(j, "timeout_ms", ju64(x->o->timeout_ms));
        for (line = x->plan_text; line != NULL && *line != '\0';) {
                char *copy;

                nl = strchr(line, '\n');
                copy = strndup(line, nl != NULL ? (size_t) (nl - line) : strlen(line));
                if (copy == NULL)
                        json_oom = 1;
                else
                        jpush(plan, jstr(copy));
                free(copy);
                line = nl != NULL ? nl + 1 : NULL;
        }
        jset(j, "plan", plan);
        json_emit(stdout, j);
}

void print_explain(const struct explain *x)
{
        FILE *f = stdout;
        const char *line, *nl;
        size_t i;

        if (json_mode) {
                explain_json(x);
                return;
        }
        fprintf(f, "mode: %s\n", sbx_mode_name(x->o->mode));
        fprintf(f, "workspace: %s\n", x->ws);
        fprintf(f, "network: %s\n", sbx_access_name(x->network));
        print_v2_fields(f, NULL, x);
        print_policy(f, NULL, x);
        fprintf(f, "backend: %s\n", x->backend != NULL ? x->backend
                                    : "none (unconfined: the command runs directly)");
        fprintf(f, "enforcement: %s\n", enforcement_name(x->enforcement));
        fputs("required: ", f);
        print_guarantees(f, x->required);
        fputs("\nachieved: ", f);
        print_guarantees(f, x->achieved);
        fputc('\n', f);
        if (x->argv != NULL) {
                fputs("argv:", f);
                for (i = 0; x->argv[i] != NULL; i++) {
                        fputc(' ', f);
                        print_shell_word(f, x->argv[i]);
                }
                fputc('\n', f);
        }
        print_limit(f, "memory", x->o->memory, " bytes", x, x->limits.memory_kind);
        print_limit(f, "pids", x->o->pids, " processes", x, x->limits.pids_kind);
        if (x->o->timeout_ms > 0)
                fprintf(f, "timeout: %llu ms (the whole tree is killed; exit 124)\n",
                        (unsigned long long) x->o->timeout_ms);
        else
                fputs("timeout: none\n", f);
        fputs("plan:\n", f);
        for (line = x->plan_text; line != NULL && *line != '\0';) {
                nl = strchr(line, '\n');
                fprintf(f, "  %.*s\n", (int) (nl != NULL ? nl - line : (long) strlen(line)), line);
                line = nl != NULL ? nl + 1 : NULL;
        }
        fflush(f);
}
