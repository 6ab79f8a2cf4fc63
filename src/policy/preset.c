/*
 * preset.c - the approval-policy vocabulary (the other safety gate) and the
 * permission presets that choose a sandbox mode and an approval together.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "policy/policy_internal.h"

static const char *const approval_names[] = {
        [SBX_APPROVAL_ALLOW] = "allow",
        [SBX_APPROVAL_DENY] = "deny",
        [SBX_APPROVAL_ASK] = "ask",
        [SBX_APPROVAL_ASK_DANGEROUS] = "ask-dangerous",
};

/* The preset table documented in sandbox.h and docs/presets.md. */
static const struct {
        const char *name;
        int32_t mode;
        int32_t approval;
} presets[] = {
        [SBX_PRESET_SAFE] = { "safe", SBX_MODE_READ_ONLY, SBX_APPROVAL_ASK_DANGEROUS },
        [SBX_PRESET_REVIEW] = { "review", SBX_MODE_WORKSPACE_WRITE, SBX_APPROVAL_ASK },
        [SBX_PRESET_DANGER] = { "danger", SBX_MODE_DANGER_FULL_ACCESS, SBX_APPROVAL_ALLOW },
        [SBX_PRESET_CUSTOM] = { "custom", SBX_MODE_NONE, 0 },
};

static int approval_is_valid(int32_t a)
{
        return a >= SBX_APPROVAL_ALLOW && a <= SBX_APPROVAL_ASK_DANGEROUS;
}

sbx_code sbx_approval_parse(const char *text, int32_t *approval_out, sbx_error *err)
{
        int32_t i;

        if (text == NULL || approval_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_approval_parse: text and approval_out must not be NULL");
        for (i = SBX_APPROVAL_ALLOW; i <= SBX_APPROVAL_ASK_DANGEROUS; i++) {
                if (strcmp(text, approval_names[i]) == 0) {
                        *approval_out = i;
                        return SBX_OK;
                }
        }
        return sbx__fail(err, SBX_E_INVALID, 0, "sbx_approval_parse: unknown value \"%.64s\"", text);
}

const char *sbx_approval_name(int32_t approval)
{
        return approval_is_valid(approval) ? approval_names[approval] : "invalid";
}

const char *sbx_preset_name(int32_t id)
{
        return (id >= SBX_PRESET_SAFE && id <= SBX_PRESET_CUSTOM) ? presets[id].name : "invalid";
}

sbx_code sbx_preset_derive(int32_t sandbox_mode, int32_t approval, int32_t *id_out, sbx_error *err)
{
        int32_t i;

        if (id_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_preset_derive: id_out is NULL");
        if (!sbx_mode_is_valid(sandbox_mode))
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_preset_derive: invalid sandbox_mode %d",
                                 (int) sandbox_mode);
        if (!approval_is_valid(approval))
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_preset_derive: invalid approval %d",
                                 (int) approval);
        for (i = SBX_PRESET_SAFE; i <= SBX_PRESET_DANGER; i++) {
                if (presets[i].mode == sandbox_mode && presets[i].approval == approval) {
                        *id_out = i;
                        return SBX_OK;
                }
        }
        *id_out = SBX_PRESET_CUSTOM;
        return SBX_OK;
}

static sbx_code check_out(const char *fn, const sbx_preset *out, sbx_error *err)
{
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (out->version != SBX_PRESET_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: out->version must be SBX_PRESET_VERSION (use SBX_PRESET_INIT)", fn);
        return SBX_OK;
}

sbx_code sbx_preset_resolve(const char *name, sbx_preset *out, sbx_error *err)
{
        const char *fn = "sbx_preset_resolve";
        int32_t i;
        sbx_code r = check_out(fn, out, err);

        if (r != SBX_OK)
                return r;
        if (name == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: name is NULL", fn);
        for (i = SBX_PRESET_SAFE; i <= SBX_PRESET_DANGER; i++) {
                if (strcmp(name, presets[i].name) == 0) {
                        out->id = i;
                        out->sandbox_mode = presets[i].mode;
                        out->approval = presets[i].approval;
                        return SBX_OK;
                }
        }
        if (strcmp(name, "custom") == 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: \"custom\" has no values of its own; use sbx_preset_custom", fn);
        return sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown preset \"%.64s\"", fn, name);
}

sbx_code sbx_preset_custom(int32_t base, int32_t mode_override, int32_t approval_override,
                           sbx_preset *out, sbx_error *err)
{
        const char *fn = "sbx_preset_custom";
        int32_t mode, approval, id = 0;
        sbx_code r = check_out(fn, out, err);

        if (r != SBX_OK)
                return r;
        if (base < SBX_PRESET_SAFE || base > SBX_PRESET_DANGER)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: base must be safe, review or danger", fn);
        if (mode_override != SBX_MODE_NONE && !sbx_mode_is_valid(mode_override))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid mode_override %d", fn,
                                 (int) mode_override);
        if (approval_override != 0 && !approval_is_valid(approval_override))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid approval_override %d", fn,
                                 (int) approval_override);
        mode = mode_override != SBX_MODE_NONE ? mode_override : presets[base].mode;
        approval = approval_override != 0 ? approval_override : presets[base].approval;
        r = sbx_preset_derive(mode, approval, &id, err);
        if (r != SBX_OK)
                return r;
        out->id = id;
        out->sandbox_mode = mode;
        out->approval = approval;
        return SBX_OK;
}
