/*
 * jsonc_fail.c - LD_PRELOADed into sandbox-run by test_cli: with
 * SBX_JSONC_FAIL=N in the environment, the Nth call (from 0) of the
 * json-c entry points below that the process makes fails as json-c fails
 * when memory runs out (NULL, or -1 from an add), so a test can fail
 * each step of building the --json output in turn.
 *
 * sandbox-run links json-c as a shared library, so its calls resolve to
 * these definitions first; each forwards to json-c's own (RTLD_NEXT).
 * Built without sanitizers, as sbx-probe (tests/CMakeLists.txt); the
 * test sets ASAN_OPTIONS=verify_asan_link_order=0 for a sanitized
 * sandbox-run.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct json_object json_object;

/* Defined here for the preload, declared for -Wmissing-prototypes. */
json_object *json_object_new_object(void);
json_object *json_object_new_array(void);
json_object *json_object_new_string_len(const char *s, int len);
json_object *json_object_new_boolean(int b);
json_object *json_object_new_int64(int64_t i);
json_object *json_object_new_uint64(uint64_t i);
int json_object_object_add(json_object *obj, const char *key, json_object *val);
int json_object_array_add(json_object *arr, json_object *val);
const char *json_object_to_json_string_length(json_object *obj, int flags, size_t *len);

static long calls;

static int fail_now(void)
{
        const char *n = getenv("SBX_JSONC_FAIL");

        return n != NULL && calls++ == strtol(n, NULL, 10);
}

static void *next(const char *name)
{
        void *f = dlsym(RTLD_NEXT, name);

        if (f == NULL)
                abort();
        return f;
}

/* real: json-c's own name (its type is the prototype above). */
#define REAL(name) \
        static __typeof__(&name) real; \
        if (real == NULL) \
                real = (__typeof__(&name)) next(#name)

json_object *json_object_new_object(void)
{
        REAL(json_object_new_object);
        return fail_now() ? NULL : real();
}

json_object *json_object_new_array(void)
{
        REAL(json_object_new_array);
        return fail_now() ? NULL : real();
}

json_object *json_object_new_string_len(const char *s, int len)
{
        REAL(json_object_new_string_len);
        return fail_now() ? NULL : real(s, len);
}

json_object *json_object_new_boolean(int b)
{
        REAL(json_object_new_boolean);
        return fail_now() ? NULL : real(b);
}

json_object *json_object_new_int64(int64_t i)
{
        REAL(json_object_new_int64);
        return fail_now() ? NULL : real(i);
}

json_object *json_object_new_uint64(uint64_t i)
{
        REAL(json_object_new_uint64);
        return fail_now() ? NULL : real(i);
}

int json_object_object_add(json_object *obj, const char *key, json_object *val)
{
        REAL(json_object_object_add);
        return fail_now() ? -1 : real(obj, key, val);
}

int json_object_array_add(json_object *arr, json_object *val)
{
        REAL(json_object_array_add);
        return fail_now() ? -1 : real(arr, val);
}

const char *json_object_to_json_string_length(json_object *obj, int flags, size_t *len)
{
        REAL(json_object_to_json_string_length);
        return fail_now() ? NULL : real(obj, flags, len);
}
