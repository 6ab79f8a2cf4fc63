/*
 * fingerprint.c - sbx_profile_fingerprint: a SHA-256 (the platform's,
 * core/posix/sha256.c or core/win32/sha256.c) over the canonical
 * serialization of a profile's configured authority (docs/profiles.md,
 * "Fingerprint").
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "profile/profile_internal.h"

static void fp_bytes(struct sbx__sha256 *ctx, const char *s, size_t n)
{
        sbx__sha256_update(ctx, s, n);
}

static void fp_str(struct sbx__sha256 *ctx, const char *s)
{
        fp_bytes(ctx, s, strlen(s));
}

/* "<decimal length>:<bytes>": no path can forge a line or a field. */
static void fp_path(struct sbx__sha256 *ctx, const char *path)
{
        char num[32];
        size_t n = strlen(path);

        (void) snprintf(num, sizeof(num), "%zu:", n);
        fp_str(ctx, num);
        fp_bytes(ctx, path, n);
}

static void fp_line(struct sbx__sha256 *ctx, const char *key, const char *value)
{
        fp_str(ctx, key);
        fp_str(ctx, "=");
        fp_str(ctx, value);
        fp_str(ctx, "\n");
}

/*
 * The serialization (docs/profiles.md, "Fingerprint"):
 *
 *   sbx-profile-v1
 *   workspace_root=<len>:<path>
 *   workspace_read=<access>      (deny | gated | allow)
 *   workspace_write=<access>
 *   host_read=<access>
 *   host_write=<access>
 *   network=<access>
 *   command=<access>
 *   home=<isolated | real>
 *   isolation=<sandboxed | unconfined>
 *   ack_unconfined=<0 | 1>
 *   roots=<n>
 *   root=<len>:<path> read=<access> write=<access>     n times, by strcmp
 *
 * then, only when they are not the default (so a version-1 profile keeps
 * its fingerprint):
 *
 *   force_workspace=1
 *   accept_unprotected_git=1
 *   unix_sockets=<n>                                   n > 0
 *   unix_socket=<len>:<path>                           n times, by strcmp
 *   allow_hosts=<n>                                    n > 0
 *   allow_host=<len>:<rule>                            n times, canonical, by strcmp
 *
 * every line ending in "\n".  The hidden secret locations are not part of
 * it: they are derived from the host, not configured, and only narrow.
 */
sbx_code sbx_profile_fingerprint(const sbx_profile *profile, char *buf, size_t buflen,
                                 sbx_error *err)
{
        static const char hex[] = "0123456789abcdef";
        const char *fn = "sbx_profile_fingerprint";
        uint8_t digest[SBX__SHA256_SIZE];
        struct sbx__sha256 ctx;
        char num[32];
        size_t i;

        if (profile == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile is NULL", fn);
        if (buf == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: buf is NULL", fn);
        if (buflen < SBX_FINGERPRINT_SIZE)
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "%s: buflen is %zu; SBX_FINGERPRINT_SIZE (%d) bytes are needed",
                                 fn, buflen, SBX_FINGERPRINT_SIZE);

        if (sbx__sha256_init(&ctx) < 0)
                return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "%s: this system offers no SHA-256",
                                 fn);
        fp_str(&ctx, "sbx-profile-v1\n");
        fp_str(&ctx, "workspace_root=");
        fp_path(&ctx, profile->workspace_root);
        fp_str(&ctx, "\n");
        fp_line(&ctx, "workspace_read", sbx_access_name(profile->workspace_read));
        fp_line(&ctx, "workspace_write", sbx_access_name(profile->workspace_write));
        fp_line(&ctx, "host_read", sbx_access_name(profile->host_read));
        fp_line(&ctx, "host_write", sbx_access_name(profile->host_write));
        fp_line(&ctx, "network", sbx_access_name(profile->network));
        fp_line(&ctx, "command", sbx_access_name(profile->command));
        fp_line(&ctx, "home", sbx__profile_home_name(profile->home));
        fp_line(&ctx, "isolation", sbx__profile_isolation_name(profile->isolation));
        fp_line(&ctx, "ack_unconfined", profile->ack_unconfined ? "1" : "0");
        (void) snprintf(num, sizeof(num), "%zu", profile->n_roots);
        fp_line(&ctx, "roots", num);
        for (i = 0; i < profile->n_roots; i++) {
                fp_str(&ctx, "root=");
                fp_path(&ctx, profile->roots[i].path);
                fp_str(&ctx, " read=");
                fp_str(&ctx, sbx_access_name(profile->roots[i].read));
                fp_str(&ctx, " write=");
                fp_str(&ctx, sbx_access_name(profile->roots[i].write));
                fp_str(&ctx, "\n");
        }
        if (profile->force_workspace)
                fp_line(&ctx, "force_workspace", "1");
        if (profile->accept_unprotected_git)
                fp_line(&ctx, "accept_unprotected_git", "1");
        if (profile->n_unix_sockets > 0) {
                (void) snprintf(num, sizeof(num), "%zu", profile->n_unix_sockets);
                fp_line(&ctx, "unix_sockets", num);
                for (i = 0; i < profile->n_unix_sockets; i++) {
                        fp_str(&ctx, "unix_socket=");
                        fp_path(&ctx, profile->unix_sockets[i]);
                        fp_str(&ctx, "\n");
                }
        }
        if (profile->n_allow_hosts > 0) {
                (void) snprintf(num, sizeof(num), "%zu", profile->n_allow_hosts);
                fp_line(&ctx, "allow_hosts", num);
                for (i = 0; i < profile->n_allow_hosts; i++) {
                        fp_str(&ctx, "allow_host=");
                        fp_path(&ctx, profile->allow_hosts[i]);
                        fp_str(&ctx, "\n");
                }
        }
        if (sbx__sha256_final(&ctx, digest) < 0)
                return sbx__fail(err, SBX_E_INTERNAL, 0, "%s: the SHA-256 failed", fn);
        for (i = 0; i < sizeof(digest); i++) {
                buf[2 * i] = hex[digest[i] >> 4];
                buf[2 * i + 1] = hex[digest[i] & 0x0f];
        }
        buf[2 * sizeof(digest)] = '\0';
        return SBX_OK;
}
