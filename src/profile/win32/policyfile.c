/*
 * policyfile.c - policy files on Windows: no schema yet.  The parser is
 * json-c's (posix/policyfile.c), which has no mingw-w64 package in Debian;
 * loading or parsing a policy file fails closed (docs/windows.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "profile/policyfile_internal.h"

sbx_code sbx__pf_parse_document(sbx_policy_file *pf, const char *msgname, const char *text,
                                size_t len, sbx_error *err)
{
        (void) pf;
        (void) text;
        (void) len;
        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "%s: policy files are not available in "
                         "Windows builds yet (the parser is json-c's; docs/windows.md)",
                         msgname);
}
