/* Shared includes and helpers for the cmocka unit tests. */
#ifndef SBX_TEST_H
#define SBX_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <sandbox.h>

/* Assert a call fails with `code` and the message mentions `needle`. */
#define assert_sbx_fails(call, want_, needle_) \
        do { \
                sbx_error e_ = { 0, 0, { 0 } }; \
                sbx_error *err = &e_; \
                assert_int_equal((call), (want_)); \
                assert_int_equal(e_.code, (want_)); \
                if (strstr(e_.message, (needle_)) == NULL) \
                        fail_msg("message \"%s\" lacks \"%s\"", e_.message, (needle_)); \
        } while (0)

#endif
