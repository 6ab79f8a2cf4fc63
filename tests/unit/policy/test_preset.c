#include "unit/sbx_test.h"

static void test_preset__table(void **state)
{
        static const struct { const char *name; int32_t id, mode, approval; } rows[] = {
                { "safe", SBX_PRESET_SAFE, SBX_MODE_READ_ONLY, SBX_APPROVAL_ASK_DANGEROUS },
                { "review", SBX_PRESET_REVIEW, SBX_MODE_WORKSPACE_WRITE, SBX_APPROVAL_ASK },
                { "danger", SBX_PRESET_DANGER, SBX_MODE_DANGER_FULL_ACCESS, SBX_APPROVAL_ALLOW },
        };
        size_t i;
        (void) state;

        for (i = 0; i < 3; i++) {
                sbx_preset p = SBX_PRESET_INIT;

                assert_int_equal(sbx_preset_resolve(rows[i].name, &p, NULL), SBX_OK);
                assert_int_equal(p.id, rows[i].id);
                assert_int_equal(p.sandbox_mode, rows[i].mode);
                assert_int_equal(p.approval, rows[i].approval);
                assert_string_equal(sbx_preset_name(p.id), rows[i].name);
        }
        assert_string_equal(sbx_preset_name(SBX_PRESET_CUSTOM), "custom");
        assert_string_equal(sbx_preset_name(0), "invalid");
        assert_string_equal(sbx_preset_name(5), "invalid");
}

static void test_preset__resolve_rejects(void **state)
{
        sbx_preset p = SBX_PRESET_INIT;
        sbx_preset bad = SBX_PRESET_INIT;
        (void) state;

        assert_sbx_fails(sbx_preset_resolve("custom", &p, err), SBX_E_INVALID, "sbx_preset_custom");
        assert_sbx_fails(sbx_preset_resolve("Safe", &p, err), SBX_E_INVALID, "unknown preset");
        assert_sbx_fails(sbx_preset_resolve("", &p, err), SBX_E_INVALID, "unknown preset");
        assert_sbx_fails(sbx_preset_resolve(NULL, &p, err), SBX_E_INVALID, "name");
        assert_sbx_fails(sbx_preset_resolve("safe", NULL, err), SBX_E_INVALID, "out");
        bad.version = 0;
        assert_sbx_fails(sbx_preset_resolve("safe", &bad, err), SBX_E_INVALID, "version");
        assert_int_equal(p.id, 0); /* untouched */
}

static void test_preset__custom_overrides_are_independent(void **state)
{
        sbx_preset p = SBX_PRESET_INIT;
        (void) state;

        /* safe with only the mode widened */
        assert_int_equal(sbx_preset_custom(SBX_PRESET_SAFE, SBX_MODE_WORKSPACE_WRITE, 0, &p, NULL), SBX_OK);
        assert_int_equal(p.sandbox_mode, SBX_MODE_WORKSPACE_WRITE);
        assert_int_equal(p.approval, SBX_APPROVAL_ASK_DANGEROUS);
        assert_int_equal(p.id, SBX_PRESET_CUSTOM);
        /* safe with only the approval changed */
        assert_int_equal(sbx_preset_custom(SBX_PRESET_SAFE, 0, SBX_APPROVAL_DENY, &p, NULL), SBX_OK);
        assert_int_equal(p.sandbox_mode, SBX_MODE_READ_ONLY);
        assert_int_equal(p.approval, SBX_APPROVAL_DENY);
        assert_int_equal(p.id, SBX_PRESET_CUSTOM);
        /* no overrides: still the base preset */
        assert_int_equal(sbx_preset_custom(SBX_PRESET_REVIEW, 0, 0, &p, NULL), SBX_OK);
        assert_int_equal(p.id, SBX_PRESET_REVIEW);
        /* overrides that land on another named preset derive that preset */
        assert_int_equal(sbx_preset_custom(SBX_PRESET_SAFE, SBX_MODE_DANGER_FULL_ACCESS,
                                           SBX_APPROVAL_ALLOW, &p, NULL), SBX_OK);
        assert_int_equal(p.id, SBX_PRESET_DANGER);
}

static void test_preset__custom_rejects(void **state)
{
        sbx_preset p = SBX_PRESET_INIT;
        (void) state;

        assert_sbx_fails(sbx_preset_custom(SBX_PRESET_CUSTOM, 0, 0, &p, err), SBX_E_INVALID, "base");
        assert_sbx_fails(sbx_preset_custom(0, 0, 0, &p, err), SBX_E_INVALID, "base");
        assert_sbx_fails(sbx_preset_custom(SBX_PRESET_SAFE, 4, 0, &p, err), SBX_E_INVALID, "mode_override");
        assert_sbx_fails(sbx_preset_custom(SBX_PRESET_SAFE, 0, 5, &p, err), SBX_E_INVALID, "approval_override");
        assert_sbx_fails(sbx_preset_custom(SBX_PRESET_SAFE, 0, -1, &p, err), SBX_E_INVALID, "approval_override");
        assert_sbx_fails(sbx_preset_custom(SBX_PRESET_SAFE, 0, 0, NULL, err), SBX_E_INVALID, "out");
}

static void test_preset__derive(void **state)
{
        int32_t id = 0;
        (void) state;

        assert_int_equal(sbx_preset_derive(SBX_MODE_READ_ONLY, SBX_APPROVAL_ASK_DANGEROUS, &id, NULL), SBX_OK);
        assert_int_equal(id, SBX_PRESET_SAFE);
        assert_int_equal(sbx_preset_derive(SBX_MODE_READ_ONLY, SBX_APPROVAL_ASK, &id, NULL), SBX_OK);
        assert_int_equal(id, SBX_PRESET_CUSTOM);
        assert_sbx_fails(sbx_preset_derive(0, SBX_APPROVAL_ASK, &id, err), SBX_E_INVALID, "sandbox_mode");
        assert_sbx_fails(sbx_preset_derive(SBX_MODE_READ_ONLY, 0, &id, err), SBX_E_INVALID, "approval");
        assert_sbx_fails(sbx_preset_derive(SBX_MODE_READ_ONLY, SBX_APPROVAL_ASK, NULL, err), SBX_E_INVALID, "id_out");
}

static void test_preset__approval_vocabulary(void **state)
{
        static const char *names[] = { "allow", "deny", "ask", "ask-dangerous" };
        int32_t a = 0;
        size_t i;
        (void) state;

        for (i = 0; i < 4; i++) {
                assert_int_equal(sbx_approval_parse(names[i], &a, NULL), SBX_OK);
                assert_int_equal(a, (int32_t) i + 1);
                assert_string_equal(sbx_approval_name(a), names[i]);
        }
        assert_string_equal(sbx_approval_name(0), "invalid");
        assert_string_equal(sbx_approval_name(5), "invalid");
        assert_sbx_fails(sbx_approval_parse("ASK", &a, err), SBX_E_INVALID, "unknown");
        assert_sbx_fails(sbx_approval_parse("ask_dangerous", &a, err), SBX_E_INVALID, "unknown");
        assert_sbx_fails(sbx_approval_parse(NULL, &a, err), SBX_E_INVALID, "NULL");
        assert_sbx_fails(sbx_approval_parse("ask", NULL, err), SBX_E_INVALID, "NULL");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_preset__table),
                cmocka_unit_test(test_preset__resolve_rejects),
                cmocka_unit_test(test_preset__custom_overrides_are_independent),
                cmocka_unit_test(test_preset__custom_rejects),
                cmocka_unit_test(test_preset__derive),
                cmocka_unit_test(test_preset__approval_vocabulary),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
