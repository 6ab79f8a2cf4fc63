/*
 * winsetup.c - the public lifecycle of the elevated Windows tier
 * (sbx_windows_setup / _inspect / _remove, seed 003) and its config and
 * status initialisers.  The config is checked here, on every OS, with the
 * Windows path rules; the work is src/windows/broker.c, on Windows only.
 * Elsewhere each call is SBX_E_UNSUPPORTED once its arguments check out.
 * docs/windows.md, "The elevated tier".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "backend/backend.h"
#include "compile/windows.h"

void sbx_windows_setup_config_init(sbx_windows_setup_config *cfg)
{
        static const sbx_windows_setup_config init = SBX_WINDOWS_SETUP_CONFIG_INIT;

        if (cfg != NULL)
                *cfg = init;
}

void sbx_windows_status_init(sbx_windows_status *status)
{
        static const sbx_windows_status init = SBX_WINDOWS_STATUS_INIT;

        if (status != NULL)
                *status = init;
}

static sbx_code check_path(const char *fn, const char *field, const char *path, int required,
                           sbx_error *err)
{
        char canon[SBX__WINPATH_BUF];
        sbx_error e;
        sbx_code r;

        if (path == NULL)
                return required ? sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg->%s is required",
                                            fn, field)
                                : SBX_OK;
        memset(&e, 0, sizeof(e));
        r = sbx__winpath_check(path, canon, sizeof(canon), &e);
        if (r != SBX_OK)
                return sbx__fail(err, r, 0, "%s: cfg->%s: %.200s", fn, field, e.message);
        return SBX_OK;
}

/* setup 1: host_binary and runtime_evidence_path are required too. */
static sbx_code check_config(const char *fn, const sbx_windows_setup_config *cfg, int setup,
                             sbx_error *err)
{
        const char *id;
        size_t i, n;
        sbx_code r;

        if (cfg == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg is NULL", fn);
        if (cfg->version != SBX_WINDOWS_SETUP_CONFIG_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg->version is %u, expected %u "
                                 "(use SBX_WINDOWS_SETUP_CONFIG_INIT)", fn,
                                 (unsigned) cfg->version,
                                 (unsigned) SBX_WINDOWS_SETUP_CONFIG_VERSION);
        id = cfg->installation_id;
        if (id == NULL || id[0] == '\0')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg->installation_id is required",
                                 fn);
        n = strlen(id);
        if (n > 64)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: cfg->installation_id is longer than "
                                 "64 bytes", fn);
        for (i = 0; i < n; i++) {
                char c = id[i];

                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-'))
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg->installation_id may "
                                         "hold only A-Z a-z 0-9 . _ -", fn);
        }
        if ((id[0] == '.' && (n == 1 || (n == 2 && id[1] == '.'))))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg->installation_id is \".\" or "
                                 "\"..\"", fn);
        r = check_path(fn, "state_root", cfg->state_root, 1, err);
        if (r == SBX_OK)
                r = check_path(fn, "host_binary", cfg->host_binary, setup, err);
        if (r == SBX_OK)
                r = check_path(fn, "runtime_evidence_path", cfg->runtime_evidence_path, setup,
                               err);
        if (r != SBX_OK)
                return r;
        if (cfg->n_proxy_ports > 16)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: more than 16 proxy ports", fn);
        if (cfg->n_proxy_ports > 0 && cfg->proxy_ports == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg->proxy_ports is NULL", fn);
        for (i = 0; i < cfg->n_proxy_ports; i++)
                if (cfg->proxy_ports[i] == 0)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg->proxy_ports[%zu] is 0",
                                         fn, i);
        return SBX_OK;
}

#if !defined(_WIN32)
static sbx_code not_windows(const char *fn, sbx_error *err)
{
        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "%s: the elevated Windows tier exists only "
                         "in Windows builds", fn);
}
#endif

sbx_code sbx_windows_setup(const sbx_windows_setup_config *cfg, sbx_error *err)
{
        static const char fn[] = "sbx_windows_setup";
        sbx_code r = check_config(fn, cfg, 1, err);

        if (r != SBX_OK)
                return r;
#if defined(_WIN32)
        return sbx__win_broker_setup(cfg, err);
#else
        return not_windows(fn, err);
#endif
}

sbx_code sbx_windows_inspect(const sbx_windows_setup_config *cfg, sbx_windows_status *out,
                             sbx_error *err)
{
        static const char fn[] = "sbx_windows_inspect";
        sbx_code r;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (out->version != SBX_WINDOWS_STATUS_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out->version must be "
                                 "SBX_WINDOWS_STATUS_VERSION", fn);
        r = check_config(fn, cfg, 0, err);
        if (r != SBX_OK)
                return r;
#if defined(_WIN32)
        {
                struct sbx__win_setup_state st = { 0, 0 };
                char reason[SBX_ERROR_SIZE] = "";

                r = sbx__win_broker_inspect(cfg, &st, reason, sizeof(reason), err);
                if (r != SBX_OK)
                        return r;
                out->ready = st.ready;
                out->installed = st.installed;
                out->reserved = 0;
                memcpy(out->reason, reason, sizeof(out->reason));
                return SBX_OK;
        }
#else
        return not_windows(fn, err);
#endif
}

sbx_code sbx_windows_remove(const sbx_windows_setup_config *cfg, sbx_error *err)
{
        static const char fn[] = "sbx_windows_remove";
        sbx_code r = check_config(fn, cfg, 0, err);

        if (r != SBX_OK)
                return r;
#if defined(_WIN32)
        return sbx__win_broker_remove(cfg, err);
#else
        return not_windows(fn, err);
#endif
}
