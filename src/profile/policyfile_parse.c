/*
 * policyfile_parse.c - the policy file parser's entry points on every
 * platform: sbx_policy_file_parse, sbx_policy_settings_init and
 * sbx__pf_parse_text, which checks the text (a byte order mark, a NUL) and
 * hands it to the platform's schema (posix/policyfile.c: json-c;
 * win32/policyfile.c: none yet, SBX_E_UNSUPPORTED).  docs/policy-file.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/policyfile_internal.h"

sbx_code sbx__pf_parse_text(const char *fn, const char *name, const char *text, size_t len,
                           sbx_policy_file **out, sbx_error *err)
{
        sbx_policy_file *pf;
        char *msgname;
        sbx_code r;

        pf = calloc(1, sizeof(*pf));
        msgname = sbx__pf_message_name(name);
        if (pf == NULL || msgname == NULL || (pf->name = sbx__strdup(name)) == NULL) {
                free(msgname);
                sbx_policy_file_free(pf);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        sbx_policy_settings_init(&pf->s);
        /* A UTF-8 byte order mark, as some editors write, is not JSON. */
        if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
                text += 3;
                len -= 3;
        }
        if (memchr(text, '\0', len) != NULL)
                r = sbx__fail(err, SBX_E_INVALID, 0, "%s:%u: a NUL byte; a policy file is "
                              "UTF-8 text", msgname,
                              (unsigned) sbx__pf_line_of(text, (size_t) ((const char *) memchr(text,
                                                 '\0', len) - text)));
        else
                r = sbx__pf_parse_document(pf, msgname, text, len, err);
        free(msgname);
        if (r != SBX_OK) {
                sbx_policy_file_free(pf);
                return r;
        }
        *out = pf;
        return SBX_OK;
}

/* ------------------------------------------------------------------ API */

sbx_code sbx_policy_file_parse(const char *text, const char *name, sbx_policy_file **out,
                               sbx_error *err)
{
        const char *fn = "sbx_policy_file_parse";

        if (text == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: text is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (strlen(text) > SBX__PF_MAX_BYTES)
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: text is larger than %u bytes", fn,
                                 SBX__PF_MAX_BYTES);
        return sbx__pf_parse_text(fn, name != NULL ? name : "<string>", text, strlen(text), out, err);
}
