"""The binding's mirror of sandbox.h, checked against the installed header.

A C probe generated from the ctypes structs prints sizeof, alignment and
every field's offset and size, every enum constant, layout version, size
macro, grant class and sbx_code; each must equal the binding's.  The
header's prototypes are parsed and every bound function's parameter count,
widths and pointer-ness compared with its ctypes prototype, and every
public function must be bound or listed in NOT_BOUND.  An ABI mismatch in a
ctypes binding is a memory bug, so this runs in CI, never skipped.

SPDX-License-Identifier: Apache-2.0
"""
import ctypes
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import libsandbox as sbx
from libsandbox import _native as n

import support

# Public functions deliberately not bound, and why.
NOT_BOUND = {
    # The stage-2 runner entry: a Python host is never re-executed as the
    # runner (sandbox-run is), so there is nothing to dispatch.
    "sbx_init",
    "sbx_version_string",       # bound by the loader itself (_native._load)
    # The *_init functions fill the *library's* layout; the binding fills
    # the layout it mirrors itself (see _native's docstring).
    "sbx_mode_event_init", "sbx_session_log_report_init", "sbx_policy_request_init",
    "sbx_escalation_request_init", "sbx_runner_rule_init", "sbx_preset_init",
    "sbx_profile_config_init", "sbx_guarantee_report_init", "sbx_local_config_init",
    "sbx_spawn_options_init", "sbx_limits_report_init", "sbx_executor_set_options_init",
    "sbx_run_options_init", "sbx_policy_settings_init", "sbx_windows_setup_config_init", "sbx_windows_status_init",
}


def _probe_source():
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <sandbox.h>",
             "int main(void)", "{"]
    for s in n.STRUCTS:
        t = s.C_NAME
        lines.append('printf("size %s %%zu %%zu\\n", sizeof(%s), _Alignof(%s));' % (t, t, t))
        for f, _ in s._fields_:
            lines.append('printf("field %s.%s %%zu %%zu\\n", offsetof(%s, %s), '
                         'sizeof(((%s *) 0)->%s));' % (t, f, t, f, t, f))
    for cls, prefix in sbx.C_PREFIXES.items():
        for m in cls:
            c = prefix + m.name
            lines.append('printf("const %s %%lld\\n", (long long) (%s));' % (c, c))
    for c in n.LAYOUT_VERSIONS:
        lines.append('printf("const %s %%lld\\n", (long long) (%s));' % (c, c))
    for a in dir(sbx.GrantClass):
        if not a.startswith("_"):
            c = "SBX_GRANT_CLASS_" + a
            lines.append('printf("str %s %%s\\n", %s);' % (c, c))
    lines.append('#define X(name, value, text) printf("code %s %d\\n", #name, value);')
    lines.append("SBX_CODE_MAP(X)")
    lines += ["return 0;", "}"]
    return "\n".join(lines) + "\n"


def _run_probe():
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        raise AssertionError("no C compiler (%s) for the ABI probe: install gcc or set CC" % cc)
    d = tempfile.mkdtemp(prefix="sbx-abi-")
    try:
        src = os.path.join(d, "probe.c")
        exe = os.path.join(d, "probe")
        with open(src, "w") as f:
            f.write(_probe_source())
        r = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", support.include_dir(),
                            src, "-o", exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise AssertionError("the ABI probe does not compile (a field or constant the "
                                 "binding names is not in sandbox.h):\n" + r.stdout.decode())
        return subprocess.run([exe], stdout=subprocess.PIPE, check=True).stdout.decode()
    finally:
        shutil.rmtree(d, True)


_PROBE = None


def probe():
    global _PROBE
    if _PROBE is None:
        _PROBE = _run_probe()
    return _PROBE


# ------------------------------------------------------ header prototypes

def _header_prototypes():
    with open(os.path.join(support.include_dir(), "sandbox.h")) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    protos = {}
    for m in re.finditer(r"SBX_API\s+([^;()]*?)\b(sbx_\w+)\s*\(([^;]*?)\)\s*;", text, re.S):
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        params = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
        protos[name] = (ret, params)
    fn_typedefs = set(re.findall(r"typedef\s+[^;]*?\(\s*\*\s*(\w+)\s*\)", text))
    return protos, fn_typedefs


_INT_TYPES = {"int": ("int", ctypes.sizeof(ctypes.c_int), True),
              "sbx_code": ("int", ctypes.sizeof(ctypes.c_int), True),
              "int32_t": ("int", 4, True), "uint32_t": ("int", 4, False),
              "int64_t": ("int", 8, True), "uint64_t": ("int", 8, False),
              "size_t": ("int", ctypes.sizeof(ctypes.c_size_t), False)}


def _c_class(decl, fn_typedefs):
    """"const char *x" -> "ptr"; "int32_t mode" -> ("int", 4, True); "void"."""
    if "*" in decl or "[" in decl:
        return "ptr"
    words = decl.replace("const", " ").split()
    if not words:
        return "?"
    if words[0] in fn_typedefs:
        return "ptr"
    if words[0] == "void" and len(words) == 1:
        return "void"
    return _INT_TYPES.get(words[0], ("?", words[0]))


def _ctypes_class(t):
    if t is None:
        return "void"
    if t in (ctypes.c_char_p, ctypes.c_void_p) or issubclass(
            t, (ctypes._Pointer, ctypes._CFuncPtr)):
        return "ptr"
    signed = t(-1).value < 0
    return ("int", ctypes.sizeof(t), signed)


class TestAbi(unittest.TestCase):
    def test_struct_layouts_match_the_header(self):
        sizes = {}
        fields = {}
        for line in probe().splitlines():
            kind, name, *vals = line.split()
            if kind == "size":
                sizes[name] = (int(vals[0]), int(vals[1]))
            elif kind == "field":
                fields[name] = (int(vals[0]), int(vals[1]))
        for s in n.STRUCTS:
            self.assertEqual(sizes[s.C_NAME], (ctypes.sizeof(s), ctypes.alignment(s)),
                             "sizeof/alignof " + s.C_NAME)
            for f, _ in s._fields_:
                d = getattr(s, f)
                self.assertEqual(fields["%s.%s" % (s.C_NAME, f)], (d.offset, d.size),
                                 "offset/size of %s.%s" % (s.C_NAME, f))

    def test_constants_match_the_header(self):
        consts = {}
        strs = {}
        for line in probe().splitlines():
            kind, name, *vals = line.split()
            if kind == "const":
                consts[name] = int(vals[0])
            elif kind == "str":
                strs[name] = vals[0]
        for cls, prefix in sbx.C_PREFIXES.items():
            for m in cls:
                self.assertEqual(consts[prefix + m.name], int(m), prefix + m.name)
        for c, v in n.LAYOUT_VERSIONS.items():
            self.assertEqual(consts[c], v, c)
        for a in dir(sbx.GrantClass):
            if not a.startswith("_"):
                self.assertEqual(strs["SBX_GRANT_CLASS_" + a], getattr(sbx.GrantClass, a))

    def test_every_event_and_usage_constant_is_mirrored(self):
        # The families the binding mirrors as whole enums/flags: a constant
        # the header gains in one of them must be added to the binding.
        with open(os.path.join(support.include_dir(), "sandbox.h")) as f:
            text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
        names = set(re.findall(r"^\s*#\s*define\s+(SBX_\w+)", text, re.M))
        names |= set(re.findall(r"^\s*(SBX_\w+)\s*=", text, re.M))
        for cls, prefix, not_members in (
                (sbx.EventOp, "SBX_OP_", ()),
                (sbx.EventSource, "SBX_EVENT_", ("SBX_EVENT_TARGET_MAX",)),
                (sbx.SpawnFlag, "SBX_SPAWN_", ("SBX_SPAWN_OPTIONS_VERSION",
                                               "SBX_SPAWN_OPTIONS_INIT")),
                (sbx.UsageKnown, "SBX_USAGE_", ("SBX_USAGE_VERSION", "SBX_USAGE_INIT")),
                (sbx.LimitHit, "SBX_LIMIT_HIT_", ())):
            header = {c for c in names if c.startswith(prefix)} - set(not_members)
            self.assertEqual(header, {prefix + m.name for m in cls},
                             "%s* in sandbox.h vs libsandbox.%s" % (prefix, cls.__name__))
        self.assertIn("SBX_EVENT_TARGET_MAX", n.LAYOUT_VERSIONS)
        self.assertIn("SBX_USAGE_VERSION", n.LAYOUT_VERSIONS)

    def test_every_code_is_mirrored(self):
        codes = {}
        for line in probe().splitlines():
            kind, name, *vals = line.split()
            if kind == "code":
                codes[name] = int(vals[0])
        self.assertEqual(codes, {c.name: int(c) for c in sbx.Code},
                         "sbx_code grew: add the new codes to libsandbox.Code")

    def test_prototypes_match_the_header(self):
        protos, fn_typedefs = _header_prototypes()
        self.assertIn("sbx_spawn", protos)              # the parser works
        for name, (restype, argtypes) in n.PROTOTYPES.items():
            self.assertIn(name, protos, "%s is bound but not in sandbox.h" % name)
            ret, params = protos[name]
            self.assertEqual(len(params), len(argtypes), "%s: parameter count" % name)
            self.assertEqual(_c_class(ret, fn_typedefs), _ctypes_class(restype),
                             "%s: return type %r" % (name, ret))
            for i, (p, t) in enumerate(zip(params, argtypes)):
                self.assertEqual(_c_class(p, fn_typedefs), _ctypes_class(t),
                                 "%s: parameter %d %r" % (name, i + 1, p))

    def test_every_public_function_is_bound(self):
        protos, _ = _header_prototypes()
        missing = sorted(set(protos) - set(n.PROTOTYPES) - NOT_BOUND)
        self.assertEqual(missing, [], "sandbox.h functions the binding does not bind: add "
                         "them to _native.PROTOTYPES (and a wrapper) or to NOT_BOUND")

    def test_the_loaded_library_is_the_expected_one(self):
        want = os.environ.get("LIBSANDBOX_EXPECT_PREFIX")
        path = sbx.library_path()
        self.assertTrue(os.path.isfile(path), path)
        if want:
            self.assertTrue(path.startswith(os.path.realpath(want) + os.sep),
                            "loaded %s, expected one below %s" % (path, want))
        self.assertEqual(sbx.version().split(".")[:2], sbx.__version__.split(".")[:2])


if __name__ == "__main__":
    unittest.main()
