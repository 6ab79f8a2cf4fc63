"""The ctypes layer: finding and loading libsandbox, the C structs, the
function prototypes.  Nothing here is public API; libsandbox/__init__.py
wraps it.

Every struct mirrors include/sandbox.h field for field, in order, with the
same C names (tests/test_abi.py compiles a probe against the installed
header and compares every size and offset).  Each versioned struct carries
the version of the layout written here, never the library's *_INIT value:
a newer library accepts an older layout (docs/abi.md), while filling our
struct with a newer library's sbx_*_init() would write past its end.

SPDX-License-Identifier: Apache-2.0
"""
import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys

from ._version import __version__

# --------------------------------------------------------------- loading

if sys.platform == "darwin":
    SONAME = "libsandbox.0.dylib"
elif sys.platform == "win32":
    SONAME = "sandbox.dll"
else:
    SONAME = "libsandbox.so.0"          # ABI major 0 (CMakeLists.txt SBX_SOVERSION)


class LibraryNotFound(ImportError):
    """libsandbox could not be found or loaded, or is the wrong version."""


def _pkg_config_libdir():
    exe = shutil.which("pkg-config")
    if exe is None:
        return None, "pkg-config: not installed"
    try:
        r = subprocess.run([exe, "--variable=libdir", "sandbox"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "pkg-config: %s" % e
    libdir = r.stdout.decode("utf-8", "replace").strip()
    if r.returncode != 0 or not libdir:
        return None, "pkg-config: no module 'sandbox' (PKG_CONFIG_PATH=%s)" % \
            os.environ.get("PKG_CONFIG_PATH", "")
    return libdir, None


def _candidates():
    """Yield (how, name-or-path) in lookup order; stop after an explicit
    LIBSANDBOX_PATH (an override that fails is an error, not a hint)."""
    env = os.environ.get("LIBSANDBOX_PATH")
    if env:
        yield "LIBSANDBOX_PATH", os.path.join(env, SONAME) if os.path.isdir(env) else env
        return
    libdir, why = _pkg_config_libdir()
    if libdir is not None:
        yield "pkg-config", os.path.join(libdir, SONAME)
    else:
        yield "pkg-config", why
    found = ctypes.util.find_library("sandbox")
    if found is not None and os.path.basename(found) == SONAME:
        yield "ctypes.util.find_library", found
    yield "the loader's search path", SONAME


def _loaded_path(lib, fallback):
    """The file the loader really mapped (dladdr), else fallback."""
    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
    try:
        libc = ctypes.CDLL(None)
        dladdr = libc.dladdr
    except (OSError, AttributeError):
        return fallback
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    dladdr.restype = ctypes.c_int
    info = DlInfo()
    addr = ctypes.cast(lib.sbx_version_string, ctypes.c_void_p).value
    if dladdr(addr, ctypes.byref(info)) and info.dli_fname:
        return os.path.realpath(os.fsdecode(info.dli_fname))
    return fallback


def _abi_compatible(version):
    """The ABI rule of docs/abi.md: the same major, and while the major is 0
    the same minor too (a 0.x minor release may break the ABI)."""
    try:
        have = [int(x) for x in version.split(".")[:2]]
    except ValueError:
        return False
    want = [int(x) for x in __version__.split(".")[:2]]
    return have[0] == want[0] and (want[0] != 0 or have[1] == want[1])


def _load():
    tried = []
    for how, name in _candidates():
        if how == "pkg-config" and not name.endswith(SONAME):
            tried.append(name)          # pkg-config's reason for not answering
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError as e:
            tried.append("%s: %s" % (how, e))
            continue
        lib.sbx_version_string.restype = ctypes.c_char_p
        lib.sbx_version_string.argtypes = []
        version = lib.sbx_version_string().decode("ascii", "replace")
        path = _loaded_path(lib, name)
        if not _abi_compatible(version):
            raise LibraryNotFound(
                "libsandbox %s at %s is not ABI-compatible with this binding (%s): "
                "install the binding of the same release" % (version, path, __version__))
        return lib, path, how
    raise LibraryNotFound(
        "libsandbox (%s) not found; tried: %s.  Set LIBSANDBOX_PATH to the library file "
        "(or its directory), or PKG_CONFIG_PATH to the directory of sandbox.pc"
        % (SONAME, "; ".join(tried)))


lib, LIBRARY_PATH, LIBRARY_FOUND_BY = _load()

# ------------------------------------------------------------- constants

ERROR_SIZE = 256
PATH_MAX = 4096
DENIAL_MARKER_MAX = 60
DENIAL_CLASS_MARKER_MAX = 80
FINGERPRINT_SIZE = 65
GRANT_TOKEN_SIZE = 40
PROFILE_ACCESS_VERSION = 1
EXIT_RUNNER_FAILURE = 125
EVENT_TARGET_MAX = 1024

# The layout versions this file mirrors.
MODE_EVENT_VERSION = 1
SESSION_LOG_REPORT_VERSION = 1
POLICY_REQUEST_VERSION = 1
ESCALATION_REQUEST_VERSION = 1
RUNNER_RULE_VERSION = 1
PRESET_VERSION = 1
PROFILE_CONFIG_VERSION = 3
POLICY_SETTINGS_VERSION = 1
GUARANTEE_REPORT_VERSION = 1
LOCAL_CONFIG_VERSION = 1
SPAWN_OPTIONS_VERSION = 3
LIMITS_REPORT_VERSION = 1
USAGE_VERSION = 1
EXECUTOR_SET_OPTIONS_VERSION = 1
GRANT_REQUEST_VERSION = 1
RUN_OPTIONS_VERSION = 2
WINDOWS_SETUP_CONFIG_VERSION = 1
WINDOWS_STATUS_VERSION = 1

# ---------------------------------------------------------------- types

c_int32 = ctypes.c_int32
c_uint32 = ctypes.c_uint32
c_int64 = ctypes.c_int64
c_uint64 = ctypes.c_uint64
c_size_t = ctypes.c_size_t
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_int = ctypes.c_int
c_char_pp = ctypes.POINTER(ctypes.c_char_p)
P = ctypes.POINTER


class Error(ctypes.Structure):
    C_NAME = "sbx_error"
    _fields_ = [("code", c_int32), ("sys_errno", c_int32),
                ("message", ctypes.c_char * ERROR_SIZE)]


class ModeEvent(ctypes.Structure):
    C_NAME = "sbx_mode_event"
    _fields_ = [("version", c_uint32), ("mode", c_int32), ("source", c_int32),
                ("timestamp_ms", c_int64)]


class SessionLogReport(ctypes.Structure):
    C_NAME = "sbx_session_log_report"
    _fields_ = [("version", c_uint32), ("torn_tail", c_uint32), ("records", c_uint64),
                ("torn_bytes", c_uint64)]


class PolicyRequest(ctypes.Structure):
    C_NAME = "sbx_policy_request"
    _fields_ = [("version", c_uint32), ("mode_override", c_int32), ("session_id", c_char_p),
                ("session_cwd", c_char_p), ("events", P(ModeEvent)), ("n_events", c_size_t)]


class EscalationRequest(ctypes.Structure):
    C_NAME = "sbx_escalation_request"
    _fields_ = [("version", c_uint32), ("current_mode", c_int32), ("target_mode", c_int32),
                ("justification", c_char_p), ("session_id", c_char_p), ("command", c_char_p),
                ("deadline_ms", c_int64)]


class RunnerRule(ctypes.Structure):
    C_NAME = "sbx_runner_rule"
    _fields_ = [("version", c_uint32),
                ("allowed_exit_codes", P(c_int32)), ("n_allowed_exit_codes", c_size_t),
                ("fatal_signatures", c_char_pp), ("n_fatal_signatures", c_size_t),
                ("informational_lines", c_char_pp), ("n_informational_lines", c_size_t)]


class Preset(ctypes.Structure):
    C_NAME = "sbx_preset"
    _fields_ = [("version", c_uint32), ("id", c_int32), ("sandbox_mode", c_int32),
                ("approval", c_int32)]


class RootAccess(ctypes.Structure):
    C_NAME = "sbx_root_access"
    _fields_ = [("path", c_char_p), ("read", c_int32), ("write", c_int32)]


class ProfileConfig(ctypes.Structure):
    C_NAME = "sbx_profile_config"
    _fields_ = [("version", c_uint32), ("workspace_root", c_char_p),
                ("workspace_read", c_int32), ("workspace_write", c_int32),
                ("host_read", c_int32), ("host_write", c_int32), ("network", c_int32),
                ("command", c_int32), ("home", c_int32), ("isolation", c_int32),
                ("additional_roots", P(RootAccess)), ("n_additional_roots", c_size_t),
                ("ack_unconfined", c_int32),
                # version 2
                ("force_workspace", c_int32), ("accept_unprotected_git", c_int32),
                ("unix_sockets", c_char_pp), ("n_unix_sockets", c_size_t),
                # version 3
                ("allow_hosts", c_char_pp), ("n_allow_hosts", c_size_t)]


class NetRefusal(ctypes.Structure):
    C_NAME = "sbx_net_refusal"
    _fields_ = [("time_ms", ctypes.c_int64), ("reason", c_int32), ("status", c_int32),
                ("port", c_int32), ("host", ctypes.c_char * 256), ("addr", ctypes.c_char * 48)]


class Event(ctypes.Structure):
    C_NAME = "sbx_event"
    _fields_ = [("time_ms", c_int64), ("op", c_int32), ("source", c_int32), ("err", c_int32),
                ("pid", c_int32), ("truncated", c_int32),
                ("target", ctypes.c_char * EVENT_TARGET_MAX)]


class Usage(ctypes.Structure):
    C_NAME = "sbx_usage"
    _fields_ = [("version", c_uint32), ("known", c_uint32), ("wall_us", c_uint64),
                ("user_us", c_uint64), ("sys_us", c_uint64), ("peak_memory", c_uint64),
                ("max_processes", c_uint32), ("limits_hit", c_uint32)]


class PolicySettings(ctypes.Structure):
    C_NAME = "sbx_policy_settings"
    _fields_ = [("version", c_uint32), ("set", c_uint32), ("mode", c_int32),
                ("network", c_int32), ("backend", c_int32), ("force_workspace", c_int32),
                ("accept_unprotected_git", c_int32), ("reserved", c_uint32),
                ("workspace", c_char_p), ("memory_max", c_uint64), ("pids_max", c_uint64),
                ("timeout_ms", c_uint64),
                ("read_roots", c_char_pp), ("n_read_roots", c_size_t),
                ("write_roots", c_char_pp), ("n_write_roots", c_size_t),
                ("unix_sockets", c_char_pp), ("n_unix_sockets", c_size_t),
                ("env_pass", c_char_pp), ("n_env_pass", c_size_t),
                ("env_set", c_char_pp), ("n_env_set", c_size_t),
                ("allow_hosts", c_char_pp), ("n_allow_hosts", c_size_t)]


class GuaranteeReport(ctypes.Structure):
    C_NAME = "sbx_guarantee_report"
    _fields_ = [("version", c_uint32), ("required", c_uint32), ("achieved", c_uint32),
                ("enforcement", c_int32)]


class LocalConfig(ctypes.Structure):
    C_NAME = "sbx_local_config"
    _fields_ = [("version", c_uint32), ("backend", c_int32), ("runner_command", c_char_p)]


class SpawnOptions(ctypes.Structure):
    C_NAME = "sbx_spawn_options"
    _fields_ = [("version", c_uint32), ("backend", c_int32), ("cwd", c_char_p),
                ("envp", c_char_pp), ("keep_fds", P(c_int)), ("n_keep_fds", c_size_t),
                ("memory_max", c_uint64), ("pids_max", c_uint64), ("flags", c_uint32),
                # version 2
                ("stdin_fd", c_int32), ("stdout_fd", c_int32), ("stderr_fd", c_int32),
                ("timeout_ms", c_uint64),
                # version 3
                ("env_set", c_char_pp), ("n_env_set", c_size_t)]


class LimitsReport(ctypes.Structure):
    C_NAME = "sbx_limits_report"
    _fields_ = [("version", c_uint32), ("memory_kind", c_int32), ("pids_kind", c_int32),
                ("reserved", c_uint32), ("memory_max", c_uint64), ("pids_max", c_uint64)]


class ExecutorSetOptions(ctypes.Structure):
    C_NAME = "sbx_executor_set_options"
    _fields_ = [("version", c_uint32), ("scratch_root", c_char_p), ("max_executors", c_uint32),
                ("grant_ttl_ms", c_int64), ("backend", c_int32), ("windows_mode", c_int32),
                ("windows_state_root", c_char_p)]


class GrantRequest(ctypes.Structure):
    C_NAME = "sbx_grant_request"
    _fields_ = [("version", c_uint32), ("execution_id", c_char_p), ("command", c_char_p),
                ("cwd", c_char_p), ("kind", c_char_p), ("scope", c_char_p),
                ("grant_class", c_char_p), ("target", c_char_p), ("expires_at_ms", c_int64)]


class RunOptions(ctypes.Structure):
    C_NAME = "sbx_run_options"
    _fields_ = [("version", c_uint32), ("execution_id", c_char_p), ("cwd", c_char_p),
                ("command", c_char_p), ("argv", c_char_pp), ("tokens", c_char_pp),
                ("n_tokens", c_size_t), ("stdin_data", c_void_p), ("stdin_len", c_size_t),
                ("output_cap", c_size_t), ("timeout_ms", c_uint64), ("envp", c_char_pp),
                # version 2
                ("flags", c_uint32)]


class RunResult(ctypes.Structure):
    C_NAME = "sbx_run_result"
    # out and err are buffers of out_len / err_len bytes (NULs included):
    # POINTER(c_char), not c_char_p, which would stop at the first NUL.
    _fields_ = [("version", c_uint32), ("exited", c_int32), ("exit_code", c_int32),
                ("signal", c_int32), ("timed_out", c_int32), ("cancelled", c_int32),
                ("out", P(ctypes.c_char)), ("out_len", c_size_t), ("out_truncated", c_int32),
                ("err", P(ctypes.c_char)), ("err_len", c_size_t), ("err_truncated", c_int32),
                ("guarantees", GuaranteeReport), ("denial", c_int32),
                ("marker", ctypes.c_char * DENIAL_CLASS_MARKER_MAX),
                # version 2: written only for RunOptions version 2 (the library
                # sets version); events is malloc'd, freed by sbx_run_result_free
                ("events", P(Event)), ("n_events", c_size_t), ("events_dropped", c_uint64),
                ("usage", Usage)]


class WindowsSetupConfig(ctypes.Structure):
    C_NAME = "sbx_windows_setup_config"
    _fields_ = [("version", c_uint32), ("installation_id", c_char_p), ("state_root", c_char_p),
                ("host_binary", c_char_p), ("runtime_evidence_path", c_char_p),
                ("proxy_ports", P(ctypes.c_uint16)), ("n_proxy_ports", c_size_t)]


class WindowsStatus(ctypes.Structure):
    C_NAME = "sbx_windows_status"
    _fields_ = [("version", c_uint32), ("ready", c_int32), ("installed", c_int32),
                ("reserved", c_int32), ("reason", ctypes.c_char * ERROR_SIZE)]


STRUCTS = (Error, ModeEvent, SessionLogReport, PolicyRequest, EscalationRequest, RunnerRule,
           Preset, RootAccess, ProfileConfig, NetRefusal, Event, Usage, PolicySettings,
           GuaranteeReport, LocalConfig, SpawnOptions, LimitsReport, ExecutorSetOptions,
           GrantRequest, RunOptions, RunResult, WindowsSetupConfig, WindowsStatus)

# The versioned layouts above and the header macro each must equal.
LAYOUT_VERSIONS = {
    "SBX_MODE_EVENT_VERSION": MODE_EVENT_VERSION,
    "SBX_SESSION_LOG_REPORT_VERSION": SESSION_LOG_REPORT_VERSION,
    "SBX_POLICY_REQUEST_VERSION": POLICY_REQUEST_VERSION,
    "SBX_ESCALATION_REQUEST_VERSION": ESCALATION_REQUEST_VERSION,
    "SBX_RUNNER_RULE_VERSION": RUNNER_RULE_VERSION,
    "SBX_PRESET_VERSION": PRESET_VERSION,
    "SBX_PROFILE_CONFIG_VERSION": PROFILE_CONFIG_VERSION,
    "SBX_POLICY_SETTINGS_VERSION": POLICY_SETTINGS_VERSION,
    "SBX_GUARANTEE_REPORT_VERSION": GUARANTEE_REPORT_VERSION,
    "SBX_LOCAL_CONFIG_VERSION": LOCAL_CONFIG_VERSION,
    "SBX_SPAWN_OPTIONS_VERSION": SPAWN_OPTIONS_VERSION,
    "SBX_LIMITS_REPORT_VERSION": LIMITS_REPORT_VERSION,
    "SBX_USAGE_VERSION": USAGE_VERSION,
    "SBX_EXECUTOR_SET_OPTIONS_VERSION": EXECUTOR_SET_OPTIONS_VERSION,
    "SBX_GRANT_REQUEST_VERSION": GRANT_REQUEST_VERSION,
    "SBX_RUN_OPTIONS_VERSION": RUN_OPTIONS_VERSION,
    "SBX_WINDOWS_SETUP_CONFIG_VERSION": WINDOWS_SETUP_CONFIG_VERSION,
    "SBX_WINDOWS_STATUS_VERSION": WINDOWS_STATUS_VERSION,
    "SBX_ERROR_SIZE": ERROR_SIZE,
    "SBX_PATH_MAX": PATH_MAX,
    "SBX_DENIAL_MARKER_MAX": DENIAL_MARKER_MAX,
    "SBX_DENIAL_CLASS_MARKER_MAX": DENIAL_CLASS_MARKER_MAX,
    "SBX_FINGERPRINT_SIZE": FINGERPRINT_SIZE,
    "SBX_GRANT_TOKEN_SIZE": GRANT_TOKEN_SIZE,
    "SBX_PROFILE_ACCESS_VERSION": PROFILE_ACCESS_VERSION,
    "SBX_EXIT_RUNNER_FAILURE": EXIT_RUNNER_FAILURE,
    "SBX_EVENT_TARGET_MAX": EVENT_TARGET_MAX,
}

# ------------------------------------------------------------ prototypes

# Opaque handles are c_void_p; an out handle is a c_void_p passed byref.
H = c_void_p
PH = P(c_void_p)
E = P(Error)
CODE = c_int                        # sbx_code, returned as a C enum (int)

ApproverFn = ctypes.CFUNCTYPE(c_int32, P(EscalationRequest), c_void_p)

PROTOTYPES = {
    # errors, memory
    "sbx_code_name": (c_char_p, [c_int32]),
    "sbx_strerror": (c_char_p, [c_int32]),
    "sbx_free": (None, [c_void_p]),
    "sbx_strv_free": (None, [c_void_p]),
    # modes, events, session log
    "sbx_mode_parse": (CODE, [c_char_p, P(c_int32), E]),
    "sbx_mode_name": (c_char_p, [c_int32]),
    "sbx_mode_is_valid": (c_int, [c_int32]),
    "sbx_mode_source_parse": (CODE, [c_char_p, P(c_int32), E]),
    "sbx_mode_source_name": (c_char_p, [c_int32]),
    "sbx_mode_events_effective": (CODE, [P(ModeEvent), c_size_t, P(c_int32), E]),
    "sbx_session_log_open": (CODE, [c_char_p, PH, P(SessionLogReport), E]),
    "sbx_session_log_append": (CODE, [H, P(ModeEvent), E]),
    "sbx_session_log_events": (CODE, [H, P(P(ModeEvent)), P(c_size_t), E]),
    "sbx_session_log_close": (None, [H]),
    # policy service
    "sbx_policy_service_new": (CODE, [c_int32, c_char_p, PH, E]),
    "sbx_policy_service_free": (None, [H]),
    "sbx_policy_service_resolve": (CODE, [H, P(PolicyRequest), PH, E]),
    "sbx_exec_policy_free": (None, [H]),
    "sbx_exec_policy_mode": (c_int32, [H]),
    "sbx_exec_policy_workspace_root": (c_char_p, [H]),
    "sbx_exec_policy_session_id": (c_char_p, [H]),
    "sbx_exec_policy_is_danger": (c_int, [H]),
    "sbx_exec_policy_to_confined": (CODE, [H, PH, E]),
    "sbx_confined_policy_free": (None, [H]),
    "sbx_confined_policy_mode": (c_int32, [H]),
    "sbx_confined_policy_exec": (H, [H]),
    # escalation
    "sbx_mode_can_escalate_to": (c_int, [c_int32, c_int32]),
    "sbx_escalation_validate_args": (CODE, [c_char_p, c_char_p, P(c_int32), E]),
    "sbx_escalation_approve": (CODE, [P(EscalationRequest), ApproverFn, c_void_p,
                                      P(c_int32), E]),
    # runner rules, denial
    "sbx_runner_rule_matches": (CODE, [P(RunnerRule), c_int, c_void_p, c_size_t, P(c_int),
                                       P(c_char_p), E]),
    "sbx_denial_marker": (CODE, [c_int32, c_void_p, c_size_t, E]),
    "sbx_denied_by_sandbox": (CODE, [c_int, c_void_p, c_size_t, c_char_pp, c_size_t, P(c_int),
                                     P(c_char_p), E]),
    "sbx_denial_class_name": (c_char_p, [c_int32]),
    "sbx_denial_class_marker": (CODE, [c_int32, c_int32, c_void_p, c_size_t, E]),
    # paths
    "sbx_path_canonical": (CODE, [c_char_p, P(c_void_p), E]),
    "sbx_writable_roots": (CODE, [H, c_char_pp, c_size_t, P(c_void_p), P(c_size_t), E]),
    "sbx_path_is_within": (c_int, [c_char_p, c_char_pp, c_size_t]),
    "sbx_toolchain_roots": (CODE, [c_char_p, P(c_void_p), P(c_size_t), E]),
    # sizes
    "sbx_size_parse": (CODE, [c_char_p, P(c_uint64), E]),
    # text
    "sbx_text_strip_ansi": (CODE, [c_void_p, c_size_t, P(c_size_t), E]),
    "sbx_text_normalize": (CODE, [c_void_p, c_size_t, P(c_size_t), E]),
    "sbx_text_sanitize": (CODE, [c_void_p, c_size_t, P(c_size_t), E]),
    # approval, presets
    "sbx_approval_parse": (CODE, [c_char_p, P(c_int32), E]),
    "sbx_approval_name": (c_char_p, [c_int32]),
    "sbx_preset_name": (c_char_p, [c_int32]),
    "sbx_preset_resolve": (CODE, [c_char_p, P(Preset), E]),
    "sbx_preset_custom": (CODE, [c_int32, c_int32, c_int32, P(Preset), E]),
    "sbx_preset_derive": (CODE, [c_int32, c_int32, P(c_int32), E]),
    # profiles
    "sbx_access_name": (c_char_p, [c_int32]),
    "sbx_profile_new": (CODE, [P(ProfileConfig), PH, E]),
    "sbx_profile_free": (None, [H]),
    "sbx_profile_workspace_root": (c_char_p, [H]),
    "sbx_profile_config_get": (CODE, [H, P(ProfileConfig), E]),
    "sbx_profile_restrict": (CODE, [H, H, PH, E]),
    "sbx_profile_from_mode": (CODE, [c_int32, c_char_p, PH, E]),
    "sbx_profile_from_preset": (CODE, [P(Preset), c_char_p, PH, E]),
    "sbx_profile_access_version": (c_uint32, []),
    "sbx_profile_access_for": (CODE, [H, c_uint32, c_char_p, c_char_p, P(c_int32), E]),
    "sbx_profile_fingerprint": (CODE, [H, c_void_p, c_size_t, E]),
    # policy files
    "sbx_policy_file_load": (CODE, [c_char_p, PH, E]),
    "sbx_policy_file_parse": (CODE, [c_char_p, c_char_p, PH, E]),
    "sbx_policy_file_free": (None, [H]),
    "sbx_policy_file_name": (c_char_p, [H]),
    "sbx_policy_file_settings": (CODE, [H, P(PolicySettings), E]),
    "sbx_policy_file_line": (c_uint32, [H, c_char_p]),
    "sbx_policy_file_profile": (CODE, [H, c_char_p, PH, E]),
    "sbx_policy_file_env": (CODE, [H, c_char_pp, P(c_void_p), P(c_size_t), E]),
    "sbx_profile_from_file": (CODE, [c_char_p, c_char_p, PH, E]),
    "sbx_profile_from_string": (CODE, [c_char_p, c_char_p, c_char_p, PH, E]),
    # guarantees, plans
    "sbx_guarantee_name": (c_char_p, [c_uint32]),
    "sbx_plan_compile": (CODE, [H, PH, E]),
    "sbx_plan_discover": (CODE, [H, PH, E]),
    "sbx_plan_free": (None, [H]),
    "sbx_plan_guarantees": (CODE, [H, P(GuaranteeReport), E]),
    "sbx_plan_describe": (CODE, [H, P(c_void_p), E]),
    "sbx_plan_denial": (CODE, [H, c_int32, c_char_p, c_int, c_void_p, c_size_t, P(c_int32), E]),
    # backends
    "sbx_backend_name": (c_char_p, [c_int32]),
    "sbx_backend_parse": (CODE, [c_char_p, P(c_int32), E]),
    "sbx_local_config_set": (CODE, [P(LocalConfig), E]),
    "sbx_backend_detect": (CODE, [P(c_int32), E]),
    "sbx_backend_guarantees": (CODE, [c_int32, H, P(c_uint32), P(c_int32), E]),
    # confine
    "sbx_confine": (CODE, [c_char_pp, H, PH, E]),
    "sbx_confine_profile": (CODE, [c_char_pp, H, PH, E]),
    "sbx_confined_argv_free": (None, [H]),
    "sbx_confined_argv_argv": (c_char_pp, [H, P(c_size_t)]),
    "sbx_confined_argv_backend": (c_int32, [H]),
    "sbx_confined_argv_enforcement": (c_int32, [H]),
    "sbx_confined_argv_guarantees": (c_uint32, [H]),
    "sbx_confined_argv_denial_signatures": (c_char_pp, [H, P(c_size_t)]),
    "sbx_confined_argv_runner_rules": (P(RunnerRule), [H, P(c_size_t)]),
    # spawn, child
    "sbx_spawn": (CODE, [H, c_char_pp, P(SpawnOptions), PH, E]),
    "sbx_child_pid": (c_int32, [H]),
    "sbx_child_pollfd": (c_int, [H]),
    "sbx_child_wait": (CODE, [H, P(c_int), E]),
    "sbx_child_try_wait": (CODE, [H, P(c_int), P(c_int), E]),
    "sbx_child_kill": (CODE, [H, c_int, E]),
    "sbx_child_timed_out": (c_int, [H]),
    "sbx_child_egress": (c_int32, [H]),
    "sbx_child_net_refusals": (CODE, [H, P(NetRefusal), c_size_t, P(c_size_t), P(c_uint64), E]),
    "sbx_net_reason_name": (c_char_p, [c_int32]),
    # denial events, usage
    "sbx_child_events": (CODE, [H, P(Event), c_size_t, P(c_size_t), P(c_uint64), E]),
    "sbx_event_op_name": (c_char_p, [c_int32]),
    "sbx_event_denial_class": (c_int32, [P(Event)]),
    "sbx_child_usage": (CODE, [H, P(Usage), E]),
    "sbx_net_upstream_set": (CODE, [c_char_p, c_char_p, c_char_p, E]),
    "sbx_child_report": (CODE, [H, P(GuaranteeReport), E]),
    "sbx_child_free": (None, [H]),
    "sbx_child_limits": (CODE, [H, P(LimitsReport), E]),
    "sbx_limit_kind_name": (c_char_p, [c_int32]),
    # executors
    "sbx_executor_set_new": (CODE, [H, P(ExecutorSetOptions), PH, E]),
    "sbx_executor_set_get": (CODE, [H, c_char_p, PH, E]),
    "sbx_executor_set_close": (CODE, [H, E]),
    "sbx_executor_set_free": (None, [H]),
    "sbx_executor_issue_grant": (CODE, [H, P(GrantRequest), c_void_p, c_size_t, E]),
    "sbx_executor_run": (CODE, [H, P(RunOptions), P(RunResult), E]),
    "sbx_executor_cancel": (CODE, [H, c_char_p, E]),
    "sbx_run_result_free": (None, [P(RunResult)]),
    # the elevated Windows tier (SBX_E_UNSUPPORTED off Windows)
    "sbx_windows_setup": (CODE, [P(WindowsSetupConfig), E]),
    "sbx_windows_inspect": (CODE, [P(WindowsSetupConfig), P(WindowsStatus), E]),
    "sbx_windows_remove": (CODE, [P(WindowsSetupConfig), E]),
    # invariants
    "sbx_invariants_set_enabled": (None, [c_int]),
    "sbx_invariants_enabled": (c_int, []),
}

def _bind():
    for name, (restype, argtypes) in PROTOTYPES.items():
        fn = getattr(lib, name)         # AttributeError: a symbol the ABI promises is missing
        fn.restype = restype
        fn.argtypes = argtypes


_bind()
