/*
 * mode.c - the three sandbox modes, mode-event sources and the
 * effective-mode fold over sandbox/mode session events.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "policy/policy_internal.h"

static const char *const mode_names[] = {
        [SBX_MODE_READ_ONLY] = "read-only",
        [SBX_MODE_WORKSPACE_WRITE] = "workspace-write",
        [SBX_MODE_DANGER_FULL_ACCESS] = "danger-full-access",
};

static const char *const source_names[] = {
        [SBX_MODE_SOURCE_USER] = "user",
        [SBX_MODE_SOURCE_DELEGATION] = "delegation",
        [SBX_MODE_SOURCE_ESCALATION] = "escalation",
};

int sbx_mode_is_valid(int32_t mode)
{
        return mode >= SBX_MODE_READ_ONLY && mode <= SBX_MODE_DANGER_FULL_ACCESS;
}

const char *sbx_mode_name(int32_t mode)
{
        return sbx_mode_is_valid(mode) ? mode_names[mode] : "invalid";
}

/* Shared lookup for the small closed vocabularies: exact, case-sensitive. */
static sbx_code parse_word(const char *const *names, int32_t first, int32_t last,
                           const char *text, const char *fn, int32_t *out, sbx_error *err)
{
        int32_t i;

        if (text == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: text and out must not be NULL", fn);
        for (i = first; i <= last; i++) {
                if (strcmp(text, names[i]) == 0) {
                        *out = i;
                        return SBX_OK;
                }
        }
        return sbx__fail(err, SBX_E_INVALID, 0, "%s: unknown value \"%.64s\"", fn, text);
}

sbx_code sbx_mode_parse(const char *text, int32_t *mode_out, sbx_error *err)
{
        return parse_word(mode_names, SBX_MODE_READ_ONLY, SBX_MODE_DANGER_FULL_ACCESS, text,
                          "sbx_mode_parse", mode_out, err);
}

sbx_code sbx_mode_source_parse(const char *text, int32_t *source_out, sbx_error *err)
{
        return parse_word(source_names, SBX_MODE_SOURCE_USER, SBX_MODE_SOURCE_ESCALATION,
                          text, "sbx_mode_source_parse", source_out, err);
}

const char *sbx_mode_source_name(int32_t source)
{
        if (source < SBX_MODE_SOURCE_USER || source > SBX_MODE_SOURCE_ESCALATION)
                return "invalid";
        return source_names[source];
}

sbx_code sbx__mode_event_check(const sbx_mode_event *ev, const char *what, sbx_error *err)
{
        if (ev == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: event is NULL", what);
        if (ev->version != SBX_MODE_EVENT_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unsupported event version %u",
                                 what, (unsigned) ev->version);
        if (!sbx_mode_is_valid(ev->mode))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid sandbox mode %d", what,
                                 (int) ev->mode);
        if (ev->source < SBX_MODE_SOURCE_USER || ev->source > SBX_MODE_SOURCE_ESCALATION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid event source %d", what,
                                 (int) ev->source);
        if (ev->timestamp_ms < 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: negative timestamp", what);
        return SBX_OK;
}

sbx_code sbx_mode_events_effective(const sbx_mode_event *events, size_t n, int32_t *mode_out,
                                   sbx_error *err)
{
        char what[64];
        size_t i;
        sbx_code r;

        if (mode_out == NULL || (events == NULL && n > 0))
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_mode_events_effective: events and mode_out must not be NULL");
        /* Every event is validated, not only the last: a malformed log is
         * an error, never silently folded around. */
        for (i = 0; i < n; i++) {
                (void) snprintf(what, sizeof(what), "sbx_mode_events_effective: event %zu", i);
                r = sbx__mode_event_check(&events[i], what, err);
                if (r != SBX_OK)
                        return r;
        }
        if (n == 0)
                return sbx__fail(err, SBX_E_NOT_FOUND, 0,
                                 "sbx_mode_events_effective: no sandbox/mode event");
        *mode_out = events[n - 1].mode;
        return SBX_OK;
}
