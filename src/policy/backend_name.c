/*
 * backend_name.c - the names of the backend ids (sbx_backend_name,
 * sbx_backend_parse).  A closed vocabulary like the mode names beside it:
 * a policy file and the stage-2 runner grammar name a backend (profile/,
 * compile/), so the names sit in the policy layer, below every caller; the
 * backend table (src/backend/table.c) still owns what each backend is.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "policy/policy_internal.h"

static const char *const backend_names[] = {
        [SBX_BACKEND_AUTO] = "auto",
        [SBX_BACKEND_NATIVE] = "native",
        [SBX_BACKEND_LANDLOCK] = "landlock",
        [SBX_BACKEND_BWRAP] = "bwrap",
        [SBX_BACKEND_UNAVAILABLE] = "unavailable",
        [SBX_BACKEND_SEATBELT] = "seatbelt",
        [SBX_BACKEND_WINDOWS] = "windows",
};

const char *sbx_backend_name(int32_t backend)
{
        if (backend < 0 || (size_t) backend >= SBX__ARRAY_SIZE(backend_names))
                return "invalid";
        return backend_names[backend];
}

sbx_code sbx_backend_parse(const char *text, int32_t *backend_out, sbx_error *err)
{
        size_t i;

        if (text == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_backend_parse: text is NULL");
        if (backend_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_backend_parse: backend_out is NULL");
        for (i = 0; i < SBX__ARRAY_SIZE(backend_names); i++) {
                if (strcmp(text, backend_names[i]) == 0) {
                        *backend_out = (int32_t) i;
                        return SBX_OK;
                }
        }
        return sbx__fail(err, SBX_E_INVALID, 0,
                         "sbx_backend_parse: \"%.64s\" is not a backend (auto, native, "
                         "landlock, bwrap, unavailable, seatbelt, windows)", text);
}
