/*
 * policyfile_doc.c - a parsed policy file as an object: its free and its
 * getters (sbx_policy_file_free, _name, _settings, _line).  A leaf under
 * the parser (posix/policyfile.c, which frees a document it cannot finish) and
 * the reader and builder (policyfile_build.c), so that those two do not
 * call each other.  The representation: policyfile_internal.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>

#include "profile/policyfile_internal.h"

void sbx_policy_file_free(sbx_policy_file *pf)
{
        if (pf == NULL)
                return;
        free(pf->name);
        sbx__pf_keys_free(&pf->keys);
        free(pf->workspace);
        sbx_strv_free(pf->read_roots);
        sbx_strv_free(pf->write_roots);
        sbx_strv_free(pf->unix_sockets);
        sbx_strv_free(pf->env_pass);
        sbx_strv_free(pf->env_set);
        sbx_strv_free(pf->allow_hosts);
        free(pf);
}

const char *sbx_policy_file_name(const sbx_policy_file *pf)
{
        return pf != NULL ? pf->name : NULL;
}

sbx_code sbx_policy_file_settings(const sbx_policy_file *pf, sbx_policy_settings *out,
                                  sbx_error *err)
{
        const char *fn = "sbx_policy_file_settings";

        if (pf == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: pf is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (out->version != SBX_POLICY_SETTINGS_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out->version is %u; must be "
                                 "SBX_POLICY_SETTINGS_VERSION (use SBX_POLICY_SETTINGS_INIT)",
                                 fn, (unsigned) out->version);
        *out = pf->s;
        return SBX_OK;
}

uint32_t sbx_policy_file_line(const sbx_policy_file *pf, const char *key)
{
        if (pf == NULL || key == NULL)
                return 0;
        return sbx__pf_keys_line(&pf->keys, key);
}
