"""libsandbox for Python: confine the commands an AI coding agent runs.

A ctypes binding of the C library (include/sandbox.h).  The library is
found at import: $LIBSANDBOX_PATH (the file, or its directory), else the
libdir `pkg-config --variable=libdir sandbox` names, else
ctypes.util.find_library, else the loader's own search path.

    import libsandbox as sbx

    profile = sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, "/path/to/repo")
    done = sbx.run(profile, ["make", "test"], capture_output=True, timeout=600)
    print(done.returncode, done.report.enforcement, done.stdout)

Every failing call raises SandboxError (or a subclass) carrying the
library's sbx_code: `e.code` (a Code), `e.name` ("SBX_E_INVALID"),
`e.sys_errno` and `e.message`.  Handles are freed by close(), by `with`,
or when garbage-collected.  Reference: bindings/python/README.md.

SPDX-License-Identifier: Apache-2.0
"""
import ctypes
import dataclasses
import enum
import math
import os
import selectors
import signal as _signal
import subprocess as _subprocess
import time
import typing

from . import _native as _n
from ._version import __version__

_lib = _n.lib

__all__ = [
    "Access", "Approval", "Backend", "Child", "Code", "Completed", "ConfinedArgv",
    "ConfinedMode", "ConfinedPolicy", "DenialClass", "Enforcement", "EscalationError",
    "EscalationOutcome", "EscalationRequest", "ExecPolicy", "Executor", "ExecutorSet",
    "GrantClass", "GrantError", "Guarantee", "GuaranteeReport", "Home", "InvalidArgument",
    "Isolation", "LibraryNotFound", "LimitKind", "LimitsReport", "Mode", "ModeEvent",
    "ModeSource", "Plan", "PolicyService", "Preset", "PresetId", "Profile", "ProfileConfig",
    "RootAccess", "RunResult", "RunnerRule", "SandboxError", "SandboxUnavailable",
    "SessionLog", "SessionLogReport", "TimeoutExpired", "WindowsMode",
    "DEVNULL", "PIPE", "STDOUT",
    "approve_escalation", "backend_guarantees", "canonical_path", "code_name", "confine",
    "denial_class_marker", "denial_marker", "denied_by_sandbox", "detect_backend",
    "effective_mode", "guarantee_name", "invariants_enabled", "library_path",
    "mode_can_escalate_to", "normalize_argv", "path_is_within", "run", "sanitize_text",
    "normalize_text", "parse_size", "set_invariants_enabled", "set_local_config", "spawn",
    "strerror",
    "strip_ansi", "toolchain_roots", "validate_escalation_args", "version", "writable_roots",
    "parse_mode", "parse_mode_source", "parse_approval", "parse_backend", "resolve_preset",
    "custom_preset", "derive_preset", "WindowsStatus", "windows_setup", "windows_inspect",
    "windows_remove", "PolicyFile", "PolicySettings", "PolicySet",
    "Event", "EventOp", "EventSource", "Events", "LimitHit", "SpawnFlag", "Usage", "UsageKnown",
    "event_op_name",
]

# ------------------------------------------------------------------ enums


class Code(enum.IntEnum):
    """sbx_code (SBX_CODE_MAP); append-only."""
    OK = 0
    E_INVALID = 1
    E_NOMEM = 2
    E_INTERNAL = 3
    E_SANDBOX_UNAVAILABLE = 4
    E_TOO_LATE = 5
    E_IO = 6
    E_CORRUPT = 7
    E_NOT_FOUND = 8
    E_RANGE = 9
    E_UNSUPPORTED = 10
    E_DANGER_NOT_CONFINABLE = 11
    E_ESCALATION_NOT_WIDER = 12
    E_ESCALATION_INVALID_ARGS = 13
    E_ESCALATION_NO_APPROVER = 14
    E_ESCALATION_DENIED = 15
    E_ESCALATION_TIMED_OUT = 16
    E_ESCALATION_CANCELLED = 17
    E_GRANT_REQUIRED = 18
    E_GRANT_DENIED = 19
    E_GRANT_UNSUPPORTED = 20
    E_GRANT_EXPIRED = 21
    E_GRANT_REPLAY = 22
    E_GRANT_WRONG_COMMAND = 23
    E_GRANT_WRONG_EXECUTION = 24
    E_GRANT_WRONG_WORKING_DIRECTORY = 25
    E_GRANT_TARGET_CHANGED = 26
    E_GRANT_UNKNOWN = 27
    E_CLOSED = 28


class Mode(enum.IntEnum):
    NONE = 0
    READ_ONLY = 1
    WORKSPACE_WRITE = 2
    DANGER_FULL_ACCESS = 3


class ModeSource(enum.IntEnum):
    USER = 1
    DELEGATION = 2
    ESCALATION = 3


class ConfinedMode(enum.IntEnum):
    READ_ONLY = 1
    WORKSPACE_WRITE = 2


class EscalationOutcome(enum.IntEnum):
    APPROVED_ONCE = 1
    DENIED = 2
    TIMED_OUT = 3
    CANCELLED = 4


class Approval(enum.IntEnum):
    ALLOW = 1
    DENY = 2
    ASK = 3
    ASK_DANGEROUS = 4


class PresetId(enum.IntEnum):
    SAFE = 1
    REVIEW = 2
    DANGER = 3
    CUSTOM = 4


class Access(enum.IntEnum):
    """Deny < Gated < Allow."""
    DENY = 0
    GATED = 1
    ALLOW = 2


class Home(enum.IntEnum):
    ISOLATED = 0
    REAL = 1


class Isolation(enum.IntEnum):
    SANDBOXED = 0
    UNCONFINED = 1


class Guarantee(enum.IntFlag):
    """SBX_G_* bits: what a boundary promises."""
    READ_BOUNDARY = 1 << 0
    WRITE_BOUNDARY = 1 << 1
    ENV_SCRUB = 1 << 2
    PROCESS_ISOLATION = 1 << 3
    NETWORK_DENY = 1 << 4
    TARGET_NETWORK = 1 << 5
    ADDRESS_NETWORK = 1 << 6
    RESOURCE_LIMITS = 1 << 7
    HOME_ISOLATION = 1 << 8
    PROTECTED_PATHS = 1 << 9
    SYSCALL_FILTER = 1 << 10
    NO_NEW_PRIVS = 1 << 11
    TTY_ISOLATION = 1 << 12
    FD_ISOLATION = 1 << 13
    ALL = (1 << 14) - 1


class PolicySet(enum.IntFlag):
    """SBX_POLICY_SET_*: which keys a policy file sets."""
    MODE = 1 << 0
    WORKSPACE = 1 << 1
    NETWORK = 1 << 2
    BACKEND = 1 << 3
    MEMORY = 1 << 4
    PIDS = 1 << 5
    TIMEOUT = 1 << 6
    FORCE_WORKSPACE = 1 << 7
    ACCEPT_UNPROTECTED_GIT = 1 << 8


class Enforcement(enum.IntEnum):
    NONE = 0
    PARTIAL = 1
    FULL = 2


class Backend(enum.IntEnum):
    AUTO = 0
    NATIVE = 1
    LANDLOCK = 2
    BWRAP = 3
    UNAVAILABLE = 4
    SEATBELT = 5
    WINDOWS = 6


class LimitKind(enum.IntEnum):
    NONE = 0
    CGROUP = 1
    PER_PROCESS = 2
    PER_USER = 3


class DenialClass(enum.IntEnum):
    NONE = 0
    FILE_WRITE = 1
    FILE_READ = 2
    NETWORK = 3
    COMMAND = 4


class EventOp(enum.IntEnum):
    """sbx_event_op: what a denied operation tried (docs/events.md)."""
    READ = 1
    WRITE = 2
    CREATE = 3
    DELETE = 4
    RENAME = 5
    EXEC = 6
    CONNECT = 7
    BIND = 8                            # reserved: not reported yet
    UNIX_CONNECT = 9
    SIGNAL = 10                         # reserved: not reported yet
    LIMIT = 11
    SOCKET = 12


class EventSource(enum.IntEnum):
    """sbx_event_source: who saw the denial."""
    OBSERVER = 1
    PROXY = 2
    LIMITS = 3


class SpawnFlag(enum.IntFlag):
    """SBX_SPAWN_*: sbx_spawn_options.flags / sbx_run_options.flags."""
    OBSERVE = 1 << 0
    OBSERVE_READS = 1 << 1


class UsageKnown(enum.IntFlag):
    """SBX_USAGE_*: which values of a Usage hold."""
    WALL = 1 << 0
    CPU = 1 << 1
    MEMORY = 1 << 2
    PROCESSES = 1 << 3


class LimitHit(enum.IntFlag):
    """SBX_LIMIT_HIT_*: the limits a spawn reached."""
    MEMORY = 1 << 0
    PIDS = 1 << 1
    TIMEOUT = 1 << 2


class WindowsMode(enum.IntEnum):
    AUTO = 0
    RESTRICTED_TOKEN = 1
    ELEVATED = 2


class GrantClass:
    """The nine grant classes (SBX_GRANT_CLASS_*)."""
    FS_PATH_READ = "filesystem.path.read.v1"
    FS_TREE_READ = "filesystem.tree.read.v1"
    FS_HOST_READ = "filesystem.host.read.v1"
    FS_PATH_WRITE = "filesystem.path.write.v1"
    FS_TREE_WRITE = "filesystem.tree.write.v1"
    FS_HOST_WRITE = "filesystem.host.write.v1"
    NET_PROXY_TARGET = "network.proxy-target.v1"
    NET_BROAD = "network.broad.v1"
    COMMAND_START = "command.start.v1"


# Each enum's C constant prefix (tests/test_abi.py checks every value).
C_PREFIXES = {
    Code: "SBX_", Mode: "SBX_MODE_", ModeSource: "SBX_MODE_SOURCE_",
    ConfinedMode: "SBX_CONFINED_", EscalationOutcome: "SBX_ESCALATION_",
    Approval: "SBX_APPROVAL_", PresetId: "SBX_PRESET_", Access: "SBX_ACCESS_",
    Home: "SBX_HOME_", Isolation: "SBX_ISOLATION_", Guarantee: "SBX_G_",
    PolicySet: "SBX_POLICY_SET_",
    Enforcement: "SBX_ENFORCEMENT_", Backend: "SBX_BACKEND_", LimitKind: "SBX_LIMIT_",
    DenialClass: "SBX_DENIAL_", WindowsMode: "SBX_WINDOWS_",
    EventOp: "SBX_OP_", EventSource: "SBX_EVENT_", SpawnFlag: "SBX_SPAWN_",
    UsageKnown: "SBX_USAGE_", LimitHit: "SBX_LIMIT_HIT_",
}

PIPE = _subprocess.PIPE
STDOUT = _subprocess.STDOUT
DEVNULL = _subprocess.DEVNULL

# ----------------------------------------------------------------- errors


class SandboxError(Exception):
    """A libsandbox call failed.  code: the sbx_code (a Code, or a plain int
    for a code newer than this binding); name: sbx_code_name(code);
    sys_errno: the OS errno or 0; message: the library's message."""

    def __init__(self, code, message="", sys_errno=0):
        self.code = _enum_or_int(Code, code)
        self.name = code_name(code)
        self.sys_errno = sys_errno
        self.message = message or strerror(code)
        super().__init__(self.code, self.message)

    def __str__(self):
        s = "%s (%s)" % (self.message, self.name)
        if self.sys_errno:
            s += ": %s" % os.strerror(self.sys_errno)
        return s

    def __reduce__(self):
        return (type(self), (int(self.code), self.message, self.sys_errno))


class InvalidArgument(SandboxError, ValueError):
    """SBX_E_INVALID: a bad argument; the message names it."""


class SandboxUnavailable(SandboxError):
    """SBX_E_SANDBOX_UNAVAILABLE: no backend can enforce what is required."""


class EscalationError(SandboxError):
    """SBX_E_ESCALATION_*: the escalation was refused."""


class GrantError(SandboxError):
    """SBX_E_GRANT_*: a gated capability without (a valid) grant."""


class TimeoutExpired(Exception):
    """Child.wait(timeout) or communicate(timeout) ran out; the child runs on."""

    def __init__(self, timeout):
        super().__init__("the child did not exit within %s seconds" % timeout)
        self.timeout = timeout


LibraryNotFound = _n.LibraryNotFound


def _error_class(code):
    if code == Code.E_INVALID:
        return InvalidArgument
    if code == Code.E_SANDBOX_UNAVAILABLE:
        return SandboxUnavailable
    if Code.E_ESCALATION_NOT_WIDER <= code <= Code.E_ESCALATION_CANCELLED:
        return EscalationError
    if Code.E_GRANT_REQUIRED <= code <= Code.E_GRANT_UNKNOWN:
        return GrantError
    return SandboxError


def _raise(code, err):
    cls = _error_class(code)
    raise cls(code, err.message.decode("utf-8", "replace"), err.sys_errno)


def _call(fn, *args):
    """Call a function whose last argument is sbx_error *; raise on failure."""
    err = _n.Error()
    code = fn(*args, ctypes.byref(err))
    if code != 0:
        _raise(code, err)


def _enum_or_int(cls, value):
    try:
        return cls(value)
    except ValueError:
        return int(value)


def code_name(code):
    """sbx_code_name: "SBX_E_INVALID" etc.; "SBX_E_UNKNOWN" for others."""
    return _lib.sbx_code_name(int(code)).decode("ascii")


def strerror(code):
    """sbx_strerror: the text of a code."""
    return _lib.sbx_strerror(int(code)).decode("utf-8", "replace")


# ---------------------------------------------------------------- helpers

def _b(value):
    """str / bytes / os.PathLike -> bytes (filesystem encoding); None stays."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    return os.fsencode(os.fspath(value))


def _s(value):
    return None if value is None else os.fsdecode(value)


def _strv(items):
    """A NULL-terminated char *[] (the array keeps its strings alive)."""
    items = [_b(x) for x in items]
    if any(x is None for x in items):
        raise TypeError("a string vector cannot hold None")
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


def _take_string(ptr):
    """A library-allocated char * -> str, released with sbx_free."""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8", "replace") if ptr.value else ""
    finally:
        _lib.sbx_free(ptr)


def _take_strv(ptr):
    """A library-allocated NULL-terminated char ** -> [str], released."""
    out = []
    try:
        if ptr.value:
            vec = ctypes.cast(ptr, ctypes.POINTER(ctypes.c_char_p))
            i = 0
            while vec[i] is not None:
                out.append(os.fsdecode(vec[i]))
                i += 1
    finally:
        _lib.sbx_strv_free(ptr)
    return out


def _borrowed_strv(vec, n):
    return [os.fsdecode(vec[i]) for i in range(n)] if vec else []


def _env_list(env):
    """A mapping or an iterable of "NAME=VALUE" -> char *[] or None."""
    if env is None:
        return None
    if hasattr(env, "items"):
        env = [_b(k) + b"=" + _b(v) for k, v in env.items()]
    return _strv(env)


def _ms(seconds, what):
    if seconds is None:
        return 0
    if seconds <= 0:
        raise ValueError("%s must be positive (None: no timeout)" % what)
    return max(1, int(math.ceil(seconds * 1000)))


class _Handle:
    """An owned opaque pointer, freed once by close() or the collector."""
    _free_name = None

    def __init__(self, handle, keep=None):
        self._h = handle                 # c_void_p
        self._keep = keep                # objects whose lifetime this one needs

    @property
    def _ptr(self):
        h = getattr(self, "_h", None)
        if h is None or not h.value:
            raise ValueError("%s is closed" % type(self).__name__)
        return h

    @property
    def closed(self):
        h = getattr(self, "_h", None)
        return h is None or not h.value

    def close(self):
        """Free the handle.  No other thread may be using it."""
        h = getattr(self, "_h", None)
        if h is not None and h.value:
            self._h = None
            getattr(_lib, self._free_name)(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:               # interpreter shutdown
            pass


# ------------------------------------------------------ version and names

def version():
    """sbx_version_string: the version of the loaded library."""
    return _lib.sbx_version_string().decode("ascii")


def library_path():
    """The file of the loaded library, and how it was found."""
    return _n.LIBRARY_PATH


def _parse(fn, text):
    out = ctypes.c_int32()
    _call(fn, _b(text), ctypes.byref(out))
    return out.value


def parse_mode(text):
    """"read-only" | "workspace-write" | "danger-full-access" -> Mode."""
    return Mode(_parse(_lib.sbx_mode_parse, text))


def parse_mode_source(text):
    return ModeSource(_parse(_lib.sbx_mode_source_parse, text))


def parse_approval(text):
    return Approval(_parse(_lib.sbx_approval_parse, text))


def parse_backend(text):
    return Backend(_parse(_lib.sbx_backend_parse, text))


def _name(fn, value):
    return fn(int(value)).decode("ascii")


def mode_name(mode):
    return _name(_lib.sbx_mode_name, mode)


def mode_source_name(source):
    return _name(_lib.sbx_mode_source_name, source)


def approval_name(approval):
    return _name(_lib.sbx_approval_name, approval)


def preset_name(preset_id):
    return _name(_lib.sbx_preset_name, preset_id)


def access_name(access):
    return _name(_lib.sbx_access_name, access)


def backend_name(backend):
    return _name(_lib.sbx_backend_name, backend)


def limit_kind_name(kind):
    return _name(_lib.sbx_limit_kind_name, kind)


def denial_class_name(denial_class):
    return _name(_lib.sbx_denial_class_name, denial_class)


def event_op_name(op):
    """sbx_event_op_name: "read", "create", ...; "unknown" for other values."""
    return _name(_lib.sbx_event_op_name, op)


def guarantee_name(bit):
    """The name of one SBX_G_* bit ("read-boundary"); "invalid" otherwise."""
    return _lib.sbx_guarantee_name(int(bit)).decode("ascii")


def guarantee_names(bits):
    """The names of the set bits, lowest first."""
    return [guarantee_name(1 << i) for i in range(32) if int(bits) & (1 << i)]


def set_invariants_enabled(enabled):
    _lib.sbx_invariants_set_enabled(1 if enabled else 0)


def invariants_enabled():
    return bool(_lib.sbx_invariants_enabled())


# ------------------------------------------------------- events and logs

@dataclasses.dataclass(frozen=True)
class ModeEvent:
    """One sandbox/mode session event."""
    mode: Mode
    source: ModeSource = ModeSource.USER
    timestamp_ms: int = 0

    def _to_c(self):
        return _n.ModeEvent(_n.MODE_EVENT_VERSION, int(self.mode), int(self.source),
                            int(self.timestamp_ms))

    @classmethod
    def _from_c(cls, ev):
        return cls(_enum_or_int(Mode, ev.mode), _enum_or_int(ModeSource, ev.source),
                   ev.timestamp_ms)


def _events_c(events):
    events = list(events)
    arr = (_n.ModeEvent * max(1, len(events)))(*[e._to_c() for e in events])
    return arr, len(events)


def effective_mode(events):
    """The mode of the last event.  No events: SandboxError E_NOT_FOUND."""
    arr, n = _events_c(events)
    out = ctypes.c_int32()
    _call(_lib.sbx_mode_events_effective, arr, n, ctypes.byref(out))
    return Mode(out.value)


@dataclasses.dataclass(frozen=True)
class SessionLogReport:
    torn_tail: bool
    records: int
    torn_bytes: int


class SessionLog(_Handle):
    """The durable JSON Lines log of sandbox/mode events (flock'ed while open)."""
    _free_name = "sbx_session_log_close"

    def __init__(self, path):
        h = ctypes.c_void_p()
        rep = _n.SessionLogReport(_n.SESSION_LOG_REPORT_VERSION, 0, 0, 0)
        _call(_lib.sbx_session_log_open, _b(path), ctypes.byref(h), ctypes.byref(rep))
        super().__init__(h)
        self.report = SessionLogReport(bool(rep.torn_tail), rep.records, rep.torn_bytes)

    def append(self, event):
        ev = event._to_c()
        _call(_lib.sbx_session_log_append, self._ptr, ctypes.byref(ev))

    def events(self):
        p = ctypes.POINTER(_n.ModeEvent)()
        n = ctypes.c_size_t()
        _call(_lib.sbx_session_log_events, self._ptr, ctypes.byref(p), ctypes.byref(n))
        return [ModeEvent._from_c(p[i]) for i in range(n.value)]


# ---------------------------------------------------------------- policy

class ExecPolicy(_Handle):
    """A resolved execution policy (mode + workspace root)."""
    _free_name = "sbx_exec_policy_free"

    @property
    def mode(self):
        return Mode(_lib.sbx_exec_policy_mode(self._ptr))

    @property
    def workspace_root(self):
        return _s(_lib.sbx_exec_policy_workspace_root(self._ptr))

    @property
    def session_id(self):
        return _s(_lib.sbx_exec_policy_session_id(self._ptr))

    @property
    def is_danger(self):
        return bool(_lib.sbx_exec_policy_is_danger(self._ptr))

    def to_confined(self):
        """The confined policy; danger-full-access raises E_DANGER_NOT_CONFINABLE."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_exec_policy_to_confined, self._ptr, ctypes.byref(h))
        return ConfinedPolicy(h)


class ConfinedPolicy(_Handle):
    """A policy that is never danger-full-access."""
    _free_name = "sbx_confined_policy_free"

    @property
    def mode(self):
        return ConfinedMode(_lib.sbx_confined_policy_mode(self._ptr))

    @property
    def workspace_root(self):
        return _s(_lib.sbx_exec_policy_workspace_root(_lib.sbx_confined_policy_exec(self._ptr)))

    @property
    def session_id(self):
        return _s(_lib.sbx_exec_policy_session_id(_lib.sbx_confined_policy_exec(self._ptr)))

    def writable_roots(self, extra=()):
        return writable_roots(self, extra)


class PolicyService(_Handle):
    """Deployment default mode + fallback workspace root; resolves calls."""
    _free_name = "sbx_policy_service_free"

    def __init__(self, default_mode, fallback_root):
        h = ctypes.c_void_p()
        _call(_lib.sbx_policy_service_new, int(default_mode), _b(fallback_root),
              ctypes.byref(h))
        super().__init__(h)

    def resolve(self, mode_override=None, session_id=None, session_cwd=None, events=()):
        """mode = override > last event > default; root = session_cwd > fallback."""
        arr, n = _events_c(events)
        req = _n.PolicyRequest(_n.POLICY_REQUEST_VERSION,
                               int(mode_override) if mode_override is not None else 0,
                               _b(session_id), _b(session_cwd), arr, n)
        h = ctypes.c_void_p()
        _call(_lib.sbx_policy_service_resolve, self._ptr, ctypes.byref(req), ctypes.byref(h))
        return ExecPolicy(h)


# ------------------------------------------------------------ escalation

def mode_can_escalate_to(current, target):
    return bool(_lib.sbx_mode_can_escalate_to(int(current), int(target)))


def validate_escalation_args(target_text, justification):
    """Both or neither; returns the target Mode (Mode.NONE for neither)."""
    out = ctypes.c_int32()
    _call(_lib.sbx_escalation_validate_args, _b(target_text), _b(justification),
          ctypes.byref(out))
    return Mode(out.value)


@dataclasses.dataclass(frozen=True)
class EscalationRequest:
    """What an approver is asked."""
    current_mode: Mode
    target_mode: Mode
    justification: str
    session_id: typing.Optional[str]
    command: typing.Optional[str]
    deadline_ms: int


def approve_escalation(current_mode, target_mode, justification, approver, *,
                       session_id=None, command=None, deadline_ms=0):
    """The fail-closed escalation flow.  approver(EscalationRequest) returns an
    EscalationOutcome; an exception in it counts as denied and is re-raised
    after the library returns.  Returns the granted Mode for this one call."""
    req = _n.EscalationRequest(_n.ESCALATION_REQUEST_VERSION, int(current_mode),
                               int(target_mode), _b(justification), _b(session_id),
                               _b(command), int(deadline_ms))
    raised = []

    def trampoline(creq, _userdata):
        r = creq.contents
        try:
            view = EscalationRequest(_enum_or_int(Mode, r.current_mode),
                                     _enum_or_int(Mode, r.target_mode),
                                     _s(r.justification), _s(r.session_id), _s(r.command),
                                     r.deadline_ms)
            return int(approver(view))
        except BaseException as e:     # never unwind through C
            raised.append(e)
            return int(EscalationOutcome.DENIED)

    cb = _n.ApproverFn(trampoline) if approver is not None else _n.ApproverFn()
    out = ctypes.c_int32()
    try:
        _call(_lib.sbx_escalation_approve, ctypes.byref(req), cb, None, ctypes.byref(out))
    finally:
        if raised:
            raise raised[0]
    return Mode(out.value)


# --------------------------------------------------------------- presets

@dataclasses.dataclass(frozen=True)
class Preset:
    """A sandbox mode and an approval policy chosen together."""
    id: PresetId
    sandbox_mode: Mode
    approval: Approval

    def _to_c(self):
        return _n.Preset(_n.PRESET_VERSION, int(self.id), int(self.sandbox_mode),
                         int(self.approval))

    @classmethod
    def _from_c(cls, p):
        return cls(PresetId(p.id), Mode(p.sandbox_mode), Approval(p.approval))


def resolve_preset(name):
    """"safe" | "review" | "danger" -> Preset."""
    p = _n.Preset(_n.PRESET_VERSION, 0, 0, 0)
    _call(_lib.sbx_preset_resolve, _b(name), ctypes.byref(p))
    return Preset._from_c(p)


def custom_preset(base, mode_override=Mode.NONE, approval_override=0):
    p = _n.Preset(_n.PRESET_VERSION, 0, 0, 0)
    _call(_lib.sbx_preset_custom, int(base), int(mode_override), int(approval_override),
          ctypes.byref(p))
    return Preset._from_c(p)


def derive_preset(sandbox_mode, approval):
    out = ctypes.c_int32()
    _call(_lib.sbx_preset_derive, int(sandbox_mode), int(approval), ctypes.byref(out))
    return PresetId(out.value)


# -------------------------------------------------------------- profiles

@dataclasses.dataclass
class RootAccess:
    """An additional root with its own read and write access."""
    path: str
    read: Access = Access.ALLOW
    write: Access = Access.DENY


@dataclasses.dataclass
class ProfileConfig:
    """Every field of sbx_profile_config.  The defaults are the most
    restrictive profile: nothing readable or writable, no network, no
    commands, isolated HOME, sandboxed."""
    workspace_root: str
    workspace_read: Access = Access.DENY
    workspace_write: Access = Access.DENY
    host_read: Access = Access.DENY
    host_write: Access = Access.DENY
    network: Access = Access.DENY
    command: Access = Access.DENY
    home: Home = Home.ISOLATED
    isolation: Isolation = Isolation.SANDBOXED
    additional_roots: typing.List[RootAccess] = dataclasses.field(default_factory=list)
    ack_unconfined: bool = False
    force_workspace: bool = False
    accept_unprotected_git: bool = False
    unix_sockets: typing.List[str] = dataclasses.field(default_factory=list)
    allow_hosts: typing.List[str] = dataclasses.field(default_factory=list)

    def _to_c(self):
        c = _n.ProfileConfig()
        c.version = _n.PROFILE_CONFIG_VERSION
        c.workspace_root = _b(self.workspace_root)
        for f in ("workspace_read", "workspace_write", "host_read", "host_write", "network",
                  "command", "home", "isolation"):
            setattr(c, f, int(getattr(self, f)))
        roots = (_n.RootAccess * max(1, len(self.additional_roots)))()
        for i, r in enumerate(self.additional_roots):
            roots[i].path = _b(r.path)
            roots[i].read = int(r.read)
            roots[i].write = int(r.write)
        c.additional_roots = roots
        c.n_additional_roots = len(self.additional_roots)
        c.ack_unconfined = 1 if self.ack_unconfined else 0
        c.force_workspace = 1 if self.force_workspace else 0
        c.accept_unprotected_git = 1 if self.accept_unprotected_git else 0
        c.unix_sockets = _strv(self.unix_sockets)
        c.n_unix_sockets = len(self.unix_sockets)
        c.allow_hosts = _strv(self.allow_hosts)
        c.n_allow_hosts = len(self.allow_hosts)
        return c

    @classmethod
    def _from_c(cls, c):
        roots = [RootAccess(os.fsdecode(c.additional_roots[i].path),
                            Access(c.additional_roots[i].read),
                            Access(c.additional_roots[i].write))
                 for i in range(c.n_additional_roots)]
        return cls(workspace_root=_s(c.workspace_root),
                   workspace_read=Access(c.workspace_read),
                   workspace_write=Access(c.workspace_write),
                   host_read=Access(c.host_read), host_write=Access(c.host_write),
                   network=Access(c.network), command=Access(c.command),
                   home=Home(c.home), isolation=Isolation(c.isolation),
                   additional_roots=roots, ack_unconfined=bool(c.ack_unconfined),
                   force_workspace=bool(c.force_workspace),
                   accept_unprotected_git=bool(c.accept_unprotected_git),
                   unix_sockets=_borrowed_strv(c.unix_sockets, c.n_unix_sockets),
                   allow_hosts=_borrowed_strv(c.allow_hosts, c.n_allow_hosts))


def net_upstream_set(hostport, user=None, password=None):
    """Route every later egress-proxy execution through the organisation's
    proxy at hostport ("host:port"); None: direct again.  The credential stays
    in this process."""
    _call(_lib.sbx_net_upstream_set, _b(hostport) if hostport is not None else None,
          _b(user) if user is not None else None,
          _b(password) if password is not None else None)


class Profile(_Handle):
    """An immutable, validated profile; safe to share between threads."""
    _free_name = "sbx_profile_free"

    def __init__(self, config):
        """Validate a ProfileConfig (InvalidArgument names the bad field)."""
        c = config._to_c()
        h = ctypes.c_void_p()
        _call(_lib.sbx_profile_new, ctypes.byref(c), ctypes.byref(h))
        super().__init__(h)

    @classmethod
    def _wrap(cls, h):
        self = cls.__new__(cls)
        _Handle.__init__(self, h)
        return self

    @classmethod
    def from_mode(cls, mode, workspace_root):
        """The named profile of a mode (docs/profiles.md has the table)."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_profile_from_mode, int(mode), _b(workspace_root), ctypes.byref(h))
        return cls._wrap(h)

    @classmethod
    def from_preset(cls, preset, workspace_root):
        """A preset's (a Preset or its name) profile: its sandbox mode's."""
        if isinstance(preset, str):
            preset = resolve_preset(preset)
        p = preset._to_c()
        h = ctypes.c_void_p()
        _call(_lib.sbx_profile_from_preset, ctypes.byref(p), _b(workspace_root),
              ctypes.byref(h))
        return cls._wrap(h)

    @classmethod
    def from_file(cls, path, workspace_root=None):
        """The profile a policy file describes (docs/policy-file.md);
        workspace_root None: the file's "workspace".  A bad file raises
        InvalidArgument "<file>:<line>: <key>: <problem>"."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_profile_from_file, _b(path), _b(workspace_root), ctypes.byref(h))
        return cls._wrap(h)

    @classmethod
    def from_string(cls, text, name=None, workspace_root=None):
        """The same for a policy document in a string (name: for messages)."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_profile_from_string, _b(text), _b(name), _b(workspace_root),
              ctypes.byref(h))
        return cls._wrap(h)

    @property
    def workspace_root(self):
        return _s(_lib.sbx_profile_workspace_root(self._ptr))

    def config(self):
        """The normalized configuration, as a ProfileConfig to edit and rebuild."""
        c = _n.ProfileConfig()
        c.version = _n.PROFILE_CONFIG_VERSION
        _call(_lib.sbx_profile_config_get, self._ptr, ctypes.byref(c))
        return ProfileConfig._from_c(c)     # copies the borrowed strings now

    def access_for(self, kind, scope):
        """The gate seam: Access for ("filesystem.read", path), ("network",
        "host:port"), ("command.execute", command) ..."""
        out = ctypes.c_int32()
        _call(_lib.sbx_profile_access_for, self._ptr, _n.PROFILE_ACCESS_VERSION, _b(kind),
              _b(scope), ctypes.byref(out))
        return Access(out.value)

    def fingerprint(self):
        """SHA-256 hex over the profile's durable authority inputs."""
        buf = ctypes.create_string_buffer(_n.FINGERPRINT_SIZE)
        _call(_lib.sbx_profile_fingerprint, self._ptr, buf, len(buf))
        return buf.value.decode("ascii")

    def restrict(self, ceiling):
        """The component-wise intersection with ceiling."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_profile_restrict, self._ptr, ceiling._ptr, ctypes.byref(h))
        return Profile._wrap(h)

    def compile(self):
        """The backend-neutral Plan."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_plan_compile, self._ptr, ctypes.byref(h))
        return Plan(h)


# ----------------------------------------------------------- policy files

@dataclasses.dataclass(frozen=True)
class PolicySettings:
    """What a policy file says (sbx_policy_settings), copied out of it.  A
    value whose PolicySet bit is not in `set` is 0 / None."""
    set: PolicySet
    mode: Mode
    network: Access
    backend: Backend
    force_workspace: bool
    accept_unprotected_git: bool
    workspace: typing.Optional[str]
    memory_max: int
    pids_max: int
    timeout_ms: int
    read_roots: typing.List[str]
    write_roots: typing.List[str]
    unix_sockets: typing.List[str]
    env_pass: typing.List[str]
    env_set: typing.List[str]
    allow_hosts: typing.List[str]


class PolicyFile(_Handle):
    """A validated policy file (docs/policy-file.md), shared with sandbox-run:
    the profile plus how its commands are spawned.  Thread-safe to share."""
    _free_name = "sbx_policy_file_free"

    @classmethod
    def load(cls, path):
        """Read and validate path.  A bad file raises InvalidArgument whose
        message is "<file>:<line>: <key>: <problem>"."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_policy_file_load, _b(path), ctypes.byref(h))
        return cls(h)

    @classmethod
    def parse(cls, text, name=None):
        """The same for text; name stands for the file in messages."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_policy_file_parse, _b(text), _b(name), ctypes.byref(h))
        return cls(h)

    @property
    def name(self):
        return _s(_lib.sbx_policy_file_name(self._ptr))

    def settings(self):
        c = _n.PolicySettings()
        c.version = _n.POLICY_SETTINGS_VERSION
        _call(_lib.sbx_policy_file_settings, self._ptr, ctypes.byref(c))

        def strs(field):
            return _borrowed_strv(getattr(c, field), getattr(c, "n_" + field))
        return PolicySettings(
            PolicySet(c.set), _enum_or_int(Mode, c.mode), _enum_or_int(Access, c.network),
            _enum_or_int(Backend, c.backend), bool(c.force_workspace),
            bool(c.accept_unprotected_git), _s(c.workspace), c.memory_max, c.pids_max,
            c.timeout_ms, strs("read_roots"), strs("write_roots"), strs("unix_sockets"),
            strs("env_pass"), strs("env_set"), strs("allow_hosts"))

    def line(self, key):
        """The line of a key ("mode", "limits.memory", "read_roots[0]"), 0 if absent."""
        return _lib.sbx_policy_file_line(self._ptr, _b(key))

    def profile(self, workspace_root=None):
        """The profile the file describes (workspace_root None: the file's)."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_policy_file_profile, self._ptr, _b(workspace_root), ctypes.byref(h))
        return Profile._wrap(h)

    def env(self, env=None):
        """The "NAME=VALUE" entries a spawn adds: env.pass names found in env
        (a mapping or "NAME=VALUE" strings; None: this process's), then env.set."""
        p = ctypes.c_void_p()
        _call(_lib.sbx_policy_file_env, self._ptr, _env_list(env), ctypes.byref(p), None)
        return _take_strv(p)

    def spawn_options(self, env=None):
        """Keyword arguments for spawn() / run(): env_set, the limits, the
        timeout and the backend the file sets."""
        st = self.settings()
        kw = {"env_set": self.env(env)}
        if st.set & PolicySet.MEMORY:
            kw["memory_max"] = st.memory_max
        if st.set & PolicySet.PIDS:
            kw["pids_max"] = st.pids_max
        if st.set & PolicySet.TIMEOUT:
            kw["timeout"] = st.timeout_ms / 1000.0
        if st.set & PolicySet.BACKEND:
            kw["backend"] = st.backend
        return kw


# ------------------------------------------------------------ guarantees

@dataclasses.dataclass(frozen=True)
class GuaranteeReport:
    """What a profile requires and what a backend enforced."""
    required: Guarantee
    achieved: Guarantee
    enforcement: Enforcement

    @property
    def missing(self):
        return Guarantee(int(self.required) & ~int(self.achieved) & int(Guarantee.ALL))

    @property
    def achieved_names(self):
        return guarantee_names(self.achieved)

    @property
    def required_names(self):
        return guarantee_names(self.required)

    @classmethod
    def _from_c(cls, r):
        return cls(Guarantee(r.required), Guarantee(r.achieved),
                   _enum_or_int(Enforcement, r.enforcement))


def _report_c():
    return _n.GuaranteeReport(_n.GUARANTEE_REPORT_VERSION, 0, 0, 0)


class Plan(_Handle):
    """A compiled, immutable plan; safe to share between threads."""
    _free_name = "sbx_plan_free"

    def guarantees(self):
        """What the plan requires (achieved 0, enforcement NONE)."""
        r = _report_c()
        _call(_lib.sbx_plan_guarantees, self._ptr, ctypes.byref(r))
        return GuaranteeReport._from_c(r)

    def describe(self):
        """The deterministic text rendering of the plan."""
        p = ctypes.c_void_p()
        _call(_lib.sbx_plan_describe, self._ptr, ctypes.byref(p))
        return _take_string(p)

    def discover(self):
        """The plan with the git locations below its writable roots protected."""
        h = ctypes.c_void_p()
        _call(_lib.sbx_plan_discover, self._ptr, ctypes.byref(h))
        return Plan(h)

    def denial(self, exit_code, stderr, backend=Backend.AUTO, cwd=None):
        """Which DenialClass of this plan explains a failed command's stderr."""
        data = _b(stderr)
        out = ctypes.c_int32()
        _call(_lib.sbx_plan_denial, self._ptr, int(backend), _b(cwd), int(exit_code), data,
              len(data), ctypes.byref(out))
        return DenialClass(out.value)


def _as_plan(plan_or_profile):
    if isinstance(plan_or_profile, Profile):
        return plan_or_profile.compile(), True
    if isinstance(plan_or_profile, Plan):
        return plan_or_profile, False
    raise TypeError("expected a Plan or a Profile, not %s" % type(plan_or_profile).__name__)


# --------------------------------------------------------------- backends

def set_local_config(backend=Backend.AUTO, runner_command=None):
    """Force a backend and/or runner; only before detection (E_TOO_LATE after)."""
    c = _n.LocalConfig(_n.LOCAL_CONFIG_VERSION, int(backend), _b(runner_command))
    _call(_lib.sbx_local_config_set, ctypes.byref(c))


def detect_backend():
    """Run detection (once per process, cached) and return the Backend."""
    out = ctypes.c_int32()
    _call(_lib.sbx_backend_detect, ctypes.byref(out))
    return Backend(out.value)


def backend_guarantees(plan, backend=Backend.AUTO):
    """(achieved Guarantee, Enforcement) of backend for plan."""
    achieved = ctypes.c_uint32()
    enf = ctypes.c_int32()
    _call(_lib.sbx_backend_guarantees, int(backend), plan._ptr, ctypes.byref(achieved),
          ctypes.byref(enf))
    return Guarantee(achieved.value), Enforcement(enf.value)


# -------------------------------------------------------- runner rules

@dataclasses.dataclass(frozen=True)
class RunnerRule:
    """Tells a runner failure from a command failure."""
    allowed_exit_codes: typing.Tuple[int, ...] = ()
    fatal_signatures: typing.Tuple[str, ...] = ()
    informational_lines: typing.Tuple[str, ...] = ()

    def matches(self, exit_code, stderr):
        """The matched fatal signature, or None."""
        codes = (ctypes.c_int32 * max(1, len(self.allowed_exit_codes)))(
            *self.allowed_exit_codes)
        rule = _n.RunnerRule(_n.RUNNER_RULE_VERSION, codes, len(self.allowed_exit_codes),
                             _strv(self.fatal_signatures), len(self.fatal_signatures),
                             _strv(self.informational_lines), len(self.informational_lines))
        data = _b(stderr)
        matched = ctypes.c_int()
        sig = ctypes.c_char_p()
        _call(_lib.sbx_runner_rule_matches, ctypes.byref(rule), int(exit_code), data,
              len(data), ctypes.byref(matched), ctypes.byref(sig))
        return _s(sig.value) if matched.value else None

    @classmethod
    def _from_c(cls, r):
        return cls(tuple(r.allowed_exit_codes[i] for i in range(r.n_allowed_exit_codes)),
                   tuple(_borrowed_strv(r.fatal_signatures, r.n_fatal_signatures)),
                   tuple(_borrowed_strv(r.informational_lines, r.n_informational_lines)))


def denied_by_sandbox(exit_code, stderr, signatures):
    """The denial signature found in a failed command's stderr, or None."""
    data = _b(stderr)
    sigs = list(signatures)
    denied = ctypes.c_int()
    sig = ctypes.c_char_p()
    _call(_lib.sbx_denied_by_sandbox, int(exit_code), data, len(data), _strv(sigs), len(sigs),
          ctypes.byref(denied), ctypes.byref(sig))
    return _s(sig.value) if denied.value else None


def denial_marker(mode):
    """"[sandbox: file access denied under <mode> mode]"."""
    buf = ctypes.create_string_buffer(_n.DENIAL_MARKER_MAX)
    _call(_lib.sbx_denial_marker, int(mode), buf, len(buf))
    return buf.value.decode("utf-8")


def denial_class_marker(denial_class, mode):
    """The model-facing marker of one DenialClass."""
    buf = ctypes.create_string_buffer(_n.DENIAL_CLASS_MARKER_MAX)
    _call(_lib.sbx_denial_class_marker, int(denial_class), int(mode), buf, len(buf))
    return buf.value.decode("utf-8")


# ---------------------------------------------------------------- confine

@dataclasses.dataclass(frozen=True)
class ConfinedArgv:
    """runner + profile arguments + "--" + argv, for a host that spawns itself."""
    argv: typing.List[str]
    backend: Backend
    enforcement: Enforcement
    guarantees: Guarantee
    denial_signatures: typing.List[str]
    runner_rules: typing.List[RunnerRule]


def confine(argv, policy):
    """Confine argv under a ConfinedPolicy or a sandboxed Profile."""
    if isinstance(policy, ConfinedPolicy):
        fn = _lib.sbx_confine
    elif isinstance(policy, Profile):
        fn = _lib.sbx_confine_profile
    else:
        raise TypeError("expected a ConfinedPolicy or a Profile")
    h = ctypes.c_void_p()
    _call(fn, _strv(argv), policy._ptr, ctypes.byref(h))
    try:
        n = ctypes.c_size_t()
        v = _lib.sbx_confined_argv_argv(h, ctypes.byref(n))
        args = _borrowed_strv(v, n.value)
        v = _lib.sbx_confined_argv_denial_signatures(h, ctypes.byref(n))
        sigs = _borrowed_strv(v, n.value)
        rules_p = _lib.sbx_confined_argv_runner_rules(h, ctypes.byref(n))
        rules = [RunnerRule._from_c(rules_p[i]) for i in range(n.value)] if rules_p else []
        return ConfinedArgv(args, _enum_or_int(Backend, _lib.sbx_confined_argv_backend(h)),
                            _enum_or_int(Enforcement, _lib.sbx_confined_argv_enforcement(h)),
                            Guarantee(_lib.sbx_confined_argv_guarantees(h)), sigs, rules)
    finally:
        _lib.sbx_confined_argv_free(h)


# ----------------------------------------------------------------- paths

def canonical_path(path):
    """Absolute, symlinks resolved; a missing tail is appended lexically."""
    p = ctypes.c_void_p()
    _call(_lib.sbx_path_canonical, _b(path), ctypes.byref(p))
    try:
        return os.fsdecode(ctypes.string_at(p.value))
    finally:
        _lib.sbx_free(p)


def writable_roots(policy, extra=()):
    """The writable roots of a ConfinedPolicy plus extra, canonical and sorted."""
    extra = list(extra)
    p = ctypes.c_void_p()
    _call(_lib.sbx_writable_roots, policy._ptr, _strv(extra), len(extra), ctypes.byref(p),
          None)
    return _take_strv(p)


def path_is_within(path, roots):
    roots = list(roots)
    return bool(_lib.sbx_path_is_within(_b(path), _strv(roots), len(roots)))


def toolchain_roots(home=None):
    """What the toolchains below home (None: $HOME) run from: each one's
    named subtrees, never its configuration (docs/secrets.md)."""
    p = ctypes.c_void_p()
    _call(_lib.sbx_toolchain_roots, _b(home), ctypes.byref(p), None)
    return _take_strv(p)


# ----------------------------------------------------------------- sizes

def parse_size(text):
    """sbx_size_parse: "512M" and the like (digits, then at most one of K,
    M, G, T, powers of 1024) in bytes, as policy files and --memory read
    them."""
    out = ctypes.c_uint64()
    _call(_lib.sbx_size_parse, _b(text), ctypes.byref(out))
    return out.value


# ------------------------------------------------------------------ text

def _text(fn, data):
    data = bytes(data)
    buf = ctypes.create_string_buffer(data, len(data) + 1)
    n = ctypes.c_size_t()
    _call(fn, buf, len(data), ctypes.byref(n))
    return buf.raw[:n.value]


def strip_ansi(data):
    """bytes without terminal escape sequences."""
    return _text(_lib.sbx_text_strip_ansi, data)


def normalize_text(data):
    """bytes with CRLF / CR folded into LF and BEL dropped."""
    return _text(_lib.sbx_text_normalize, data)


def sanitize_text(data):
    """strip_ansi, then normalize_text."""
    return _text(_lib.sbx_text_sanitize, data)


# ----------------------------------------------------------------- spawn

@dataclasses.dataclass(frozen=True)
class LimitsReport:
    memory_kind: LimitKind
    pids_kind: LimitKind
    memory_max: int
    pids_max: int


@dataclasses.dataclass(frozen=True)
class Event:
    """One thing the sandbox refused a spawn (sbx_event; docs/events.md).
    target: a path absolute in the sandbox's view (read, write, create,
    delete, rename, exec), "HOST:PORT" for connect, the socket path for
    unix-connect, the family ("inet", ...) for socket, "memory", "pids" or
    "timeout" for limit.  err: the errno the command got (0 for a limit)."""
    op: EventOp                         # or a plain int for an op newer than the binding
    target: str
    err: int
    pid: int
    source: EventSource
    time_ms: int
    truncated: bool
    op_name: str                        # sbx_event_op_name(op)
    denial_class: DenialClass           # sbx_event_denial_class

    @classmethod
    def _from_c(cls, ev):
        return cls(_enum_or_int(EventOp, ev.op), os.fsdecode(ev.target), ev.err, ev.pid,
                   _enum_or_int(EventSource, ev.source), ev.time_ms, bool(ev.truncated),
                   event_op_name(ev.op),
                   _enum_or_int(DenialClass, _lib.sbx_event_denial_class(ctypes.byref(ev))))


class Events(list):
    """A list of Event, oldest first; dropped: how many were not kept (at
    most 64 are kept per spawn; a repeat of one op on one target counts once)."""

    def __init__(self, events=(), dropped=0):
        super().__init__(events)
        self.dropped = int(dropped)

    def __repr__(self):
        return "Events(%s, dropped=%d)" % (list.__repr__(self), self.dropped)


@dataclasses.dataclass(frozen=True)
class Usage:
    """What a spawn used (sbx_usage); a value is 0 where known lacks its bit."""
    known: UsageKnown
    wall_us: int
    user_us: int
    sys_us: int
    peak_memory: int                    # bytes
    max_processes: int
    limits_hit: LimitHit

    @classmethod
    def _from_c(cls, u):
        return cls(UsageKnown(u.known), u.wall_us, u.user_us, u.sys_us, u.peak_memory,
                   u.max_processes, LimitHit(u.limits_hit))


def _spawn_flags(observe, observe_reads):
    flags = 0
    if observe:
        flags |= SpawnFlag.OBSERVE
    if observe_reads:
        flags |= SpawnFlag.OBSERVE | SpawnFlag.OBSERVE_READS
    return int(flags)


def _stdio(spec, which, opened, stdout_child):
    """(child fd, parent end or None) for one stdio spec."""
    if spec is None:
        return -1, None
    if spec == PIPE:
        r, w = os.pipe()                     # O_CLOEXEC (PEP 446)
        opened.extend((r, w))
        return (r, w) if which == 0 else (w, r)
    if spec == DEVNULL:
        fd = os.open(os.devnull, os.O_RDONLY if which == 0 else os.O_WRONLY)
        opened.append(fd)
        return fd, None
    if spec == STDOUT:
        if which != 2:
            raise ValueError("STDOUT is only valid for stderr")
        return (stdout_child if stdout_child != -1 else 1), None
    if isinstance(spec, int):
        if spec < 0:
            raise ValueError("bad file descriptor %d" % spec)
        return spec, None
    if hasattr(spec, "fileno"):
        return spec.fileno(), None
    raise TypeError("stdio must be None, PIPE, DEVNULL, STDOUT, an fd or a file")


class Child(_Handle):
    """A confined command started by spawn(), used by one thread at a time.
    stdin / stdout / stderr are binary file objects for PIPE, else None."""
    _free_name = "sbx_child_free"

    def __init__(self, h, stdin, stdout, stderr, plan):
        super().__init__(h, keep=plan)
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.returncode = None
        self._wstatus = None

    @property
    def pid(self):
        return _lib.sbx_child_pid(self._ptr)

    @property
    def pollfd(self):
        """A descriptor readable when the child exited (-1 if none); borrowed."""
        return _lib.sbx_child_pollfd(self._ptr)

    @property
    def timed_out(self):
        """True if the spawn's timeout ended the child."""
        return bool(_lib.sbx_child_timed_out(self._ptr))

    @property
    def egress(self):
        """How the network allowlist is reached: 0 none, 1 proxy-only, 2 transparent."""
        return int(_lib.sbx_child_egress(self._ptr))

    def net_refusals(self):
        """The egress proxy's refusals for this spawn: a list of dicts (host, port,
        reason, status, address)."""
        buf = (_n.NetRefusal * 64)()
        n = ctypes.c_size_t(0)
        dropped = ctypes.c_uint64(0)
        _call(_lib.sbx_child_net_refusals, self._ptr, buf, 64, ctypes.byref(n),
              ctypes.byref(dropped))
        return [{"host": buf[i].host.decode("utf-8", "replace"), "port": buf[i].port,
                 "reason": _lib.sbx_net_reason_name(buf[i].reason).decode(),
                 "status": buf[i].status,
                 "address": buf[i].addr.decode("utf-8", "replace")} for i in range(n.value)]

    def events(self):
        """What the sandbox refused this spawn: an Events list (.dropped).
        Proxy refusals and limits always; file, exec and socket events only
        with observe=True, reads only with observe_reads=True.  Complete
        once the child was waited for."""
        n = ctypes.c_size_t(0)
        _call(_lib.sbx_child_events, self._ptr, None, 0, ctypes.byref(n), None)
        cap = max(1, n.value)
        buf = (_n.Event * cap)()
        dropped = ctypes.c_uint64(0)
        _call(_lib.sbx_child_events, self._ptr, buf, cap, ctypes.byref(n),
              ctypes.byref(dropped))
        return Events([Event._from_c(buf[i]) for i in range(n.value)], dropped.value)

    def usage(self):
        """What the spawn used (a Usage); once the child was waited for
        (InvalidArgument before)."""
        u = _n.Usage()
        u.version = _n.USAGE_VERSION
        _call(_lib.sbx_child_usage, self._ptr, ctypes.byref(u))
        return Usage._from_c(u)

    @property
    def wait_status(self):
        """The raw waitpid(2) status once reaped, else None."""
        return self._wstatus

    def _reaped(self, wstatus):
        self._wstatus = wstatus
        self.returncode = os.waitstatus_to_exitcode(wstatus)
        return self.returncode

    def poll(self):
        """The return code if the child exited (reaping it), else None."""
        if self.returncode is not None:
            return self.returncode
        done = ctypes.c_int()
        st = ctypes.c_int()
        _call(_lib.sbx_child_try_wait, self._ptr, ctypes.byref(done), ctypes.byref(st))
        return self._reaped(st.value) if done.value else None

    def wait(self, timeout=None):
        """Wait for the exit and return the return code (-N: killed by signal
        N; on the native backend a command killed by a signal shows as
        128 + N, as a shell reports it).  With timeout, TimeoutExpired if
        still running then (the child is not killed)."""
        if self.returncode is not None:
            return self.returncode
        if timeout is None:
            st = ctypes.c_int()
            _call(_lib.sbx_child_wait, self._ptr, ctypes.byref(st))
            return self._reaped(st.value)
        deadline = time.monotonic() + timeout
        fd = self.pollfd
        while True:
            rc = self.poll()
            if rc is not None:
                return rc
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutExpired(timeout)
            if fd >= 0:
                with selectors.DefaultSelector() as sel:
                    sel.register(fd, selectors.EVENT_READ)
                    sel.select(left)
            else:
                time.sleep(min(left, 0.01))

    def send_signal(self, sig):
        """Send sig to the child's process tree (not an error once reaped)."""
        _call(_lib.sbx_child_kill, self._ptr, int(sig))

    def kill(self):
        """SIGKILL the whole tree."""
        self.send_signal(_signal.SIGKILL)

    def terminate(self):
        self.send_signal(_signal.SIGTERM)

    def report(self):
        """What this spawn enforced."""
        r = _report_c()
        _call(_lib.sbx_child_report, self._ptr, ctypes.byref(r))
        return GuaranteeReport._from_c(r)

    def limits(self):
        """The resource limits applied and how (cgroup, per-process, per-user)."""
        r = _n.LimitsReport(_n.LIMITS_REPORT_VERSION, 0, 0, 0, 0, 0)
        _call(_lib.sbx_child_limits, self._ptr, ctypes.byref(r))
        return LimitsReport(LimitKind(r.memory_kind), LimitKind(r.pids_kind), r.memory_max,
                            r.pids_max)

    def communicate(self, input=None, timeout=None):
        """Write input to stdin (then close it), read stdout and stderr to EOF,
        wait; returns (stdout, stderr), None for a stream that is no PIPE."""
        deadline = None if timeout is None else time.monotonic() + timeout
        chunks = {}
        sel = selectors.DefaultSelector()
        view = memoryview(input or b"")
        try:
            if self.stdin is not None:
                self.stdin.flush()
                if view:
                    os.set_blocking(self.stdin.fileno(), False)
                    sel.register(self.stdin, selectors.EVENT_WRITE)
                else:
                    self.stdin.close()
            for f in (self.stdout, self.stderr):
                if f is not None:
                    chunks[f] = []
                    sel.register(f, selectors.EVENT_READ)
            while sel.get_map():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutExpired(timeout)
                for key, _ in sel.select(left):
                    f = key.fileobj
                    if f is self.stdin:
                        try:
                            n = os.write(f.fileno(), view[:65536])
                        except BrokenPipeError:
                            n = len(view)
                        view = view[n:]
                        if not view:
                            sel.unregister(f)
                            f.close()
                    else:
                        data = os.read(f.fileno(), 65536)
                        if data:
                            chunks[f].append(data)
                        else:
                            sel.unregister(f)
                            f.close()
        finally:
            sel.close()
        out = b"".join(chunks[self.stdout]) if self.stdout in chunks else None
        err = b"".join(chunks[self.stderr]) if self.stderr in chunks else None
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return out, err

    def close(self):
        """Close the pipes; kill the tree if still running, reap, free."""
        for f in (self.stdin, self.stdout, self.stderr):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
        super().close()


def spawn(plan, argv, *, stdin=None, stdout=None, stderr=None, cwd=None, env=None,
          env_set=None, pass_fds=(), memory_max=0, pids_max=0, timeout=None,
          backend=Backend.AUTO, observe=False, observe_reads=False):
    """Start argv confined by plan (a Plan, or a Profile compiled here).

    stdin/stdout/stderr: None (inherit), PIPE, DEVNULL, an fd or a file
    (stderr also STDOUT).  cwd: None = the workspace root.  env: the
    environment to filter (a mapping or "NAME=VALUE" strings; None: this
    process's).  env_set: entries added after the filter.  pass_fds:
    become fds 3, 4, ... in the child.  timeout (seconds): the whole tree
    is killed then.  memory_max (bytes), pids_max: resource limits.
    observe: record the writes, execs, connects and sockets the plan denies
    (Child.events(); native and landlock backends only, else
    E_UNSUPPORTED); observe_reads: every denied read too (implies observe;
    a round trip per open).  Neither changes what is enforced."""
    plan, _ = _as_plan(plan)
    argv = list(argv)
    opened = []
    child_ends = []
    try:
        in_c, in_p = _stdio(stdin, 0, opened, -1)
        out_c, out_p = _stdio(stdout, 1, opened, -1)
        err_c, err_p = _stdio(stderr, 2, opened, out_c)
        child_ends = [fd for fd in opened if fd not in (in_p, out_p, err_p)]
        o = _n.SpawnOptions()
        o.version = _n.SPAWN_OPTIONS_VERSION
        o.backend = int(backend)
        o.cwd = _b(cwd)
        o.envp = _env_list(env)
        fds = list(pass_fds)
        o.keep_fds = (ctypes.c_int * max(1, len(fds)))(*fds)
        o.n_keep_fds = len(fds)
        o.memory_max = int(memory_max)
        o.pids_max = int(pids_max)
        o.flags = _spawn_flags(observe, observe_reads)
        o.stdin_fd, o.stdout_fd, o.stderr_fd = in_c, out_c, err_c
        o.timeout_ms = _ms(timeout, "timeout")
        es = _env_list(env_set) if env_set is not None else None
        o.env_set = es
        o.n_env_set = len(es) - 1 if es is not None else 0
        h = ctypes.c_void_p()
        _call(_lib.sbx_spawn, plan._ptr, _strv(argv), ctypes.byref(o), ctypes.byref(h))
    except BaseException:
        for fd in opened:
            os.close(fd)
        raise
    for fd in child_ends:
        os.close(fd)
    return Child(h,
                 open(in_p, "wb") if in_p is not None else None,
                 open(out_p, "rb") if out_p is not None else None,
                 open(err_p, "rb") if err_p is not None else None, plan)


@dataclasses.dataclass
class Completed:
    """What run() returns."""
    args: typing.List[str]
    returncode: int
    stdout: typing.Optional[bytes]
    stderr: typing.Optional[bytes]
    report: GuaranteeReport
    timed_out: bool
    events: Events = dataclasses.field(default_factory=Events)
    usage: typing.Optional[Usage] = None


def run(plan, argv, *, input=None, capture_output=False, stdout=None, stderr=None,
        **kwargs):
    """spawn(), feed input, collect output, wait, free: like subprocess.run.
    Keyword arguments as for spawn()."""
    if capture_output:
        stdout = stderr = PIPE
    stdin = kwargs.pop("stdin", None)
    if input is not None:
        stdin = PIPE
    with spawn(plan, argv, stdin=stdin, stdout=stdout, stderr=stderr, **kwargs) as child:
        out, err = child.communicate(input)
        return Completed(list(argv), child.returncode, out, err, child.report(),
                         child.timed_out, child.events(), child.usage())


# ------------------------------------------------- the Windows elevated tier

@dataclasses.dataclass(frozen=True)
class WindowsStatus:
    ready: bool
    installed: bool
    reason: str


def _windows_config(installation_id, state_root, host_binary, runtime_evidence_path,
                    proxy_ports):
    ports = list(proxy_ports)
    arr = (ctypes.c_uint16 * max(1, len(ports)))(*ports)
    return _n.WindowsSetupConfig(_n.WINDOWS_SETUP_CONFIG_VERSION, _b(installation_id),
                                 _b(state_root), _b(host_binary), _b(runtime_evidence_path),
                                 arr, len(ports))


def windows_setup(installation_id, state_root, host_binary=None, runtime_evidence_path=None,
                  proxy_ports=()):
    """Install the elevated Windows tier (docs/windows.md; not ready in this
    version).  Off Windows: SandboxError E_UNSUPPORTED."""
    c = _windows_config(installation_id, state_root, host_binary, runtime_evidence_path,
                        proxy_ports)
    _call(_lib.sbx_windows_setup, ctypes.byref(c))


def windows_inspect(installation_id, state_root, host_binary=None,
                    runtime_evidence_path=None, proxy_ports=()):
    """Whether the elevated Windows tier is ready: a WindowsStatus."""
    c = _windows_config(installation_id, state_root, host_binary, runtime_evidence_path,
                        proxy_ports)
    st = _n.WindowsStatus()
    st.version = _n.WINDOWS_STATUS_VERSION
    _call(_lib.sbx_windows_inspect, ctypes.byref(c), ctypes.byref(st))
    return WindowsStatus(bool(st.ready), bool(st.installed),
                         st.reason.decode("utf-8", "replace"))


def windows_remove(installation_id, state_root, host_binary=None,
                   runtime_evidence_path=None, proxy_ports=()):
    """Remove the elevated Windows tier."""
    c = _windows_config(installation_id, state_root, host_binary, runtime_evidence_path,
                        proxy_ports)
    _call(_lib.sbx_windows_remove, ctypes.byref(c))


# -------------------------------------------------------------- executors

def normalize_argv(argv):
    """The normalized command of an argv-form run, which a command grant
    binds to: each argument single-quoted ('\\'' inside), joined by a space."""
    return " ".join("'" + a.replace("'", "'\\''") + "'" for a in (os.fsdecode(x) for x in argv))


@dataclasses.dataclass
class RunResult:
    """The outcome of Executor.run."""
    exited: bool
    exit_code: int
    signal: int
    timed_out: bool
    cancelled: bool
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    guarantees: GuaranteeReport
    denial: DenialClass
    marker: str
    events: Events = dataclasses.field(default_factory=Events)
    usage: typing.Optional[Usage] = None

    @property
    def returncode(self):
        """exit_code, or -signal (subprocess's convention)."""
        return self.exit_code if self.exited else -self.signal


class Executor:
    """One key's executor: its own grants, HOME and TMPDIR.  Borrowed from
    its ExecutorSet, which it keeps alive; every call is thread-safe."""

    def __init__(self, owner, h, key):
        self._set = owner
        self._h = h
        self.key = key

    @property
    def _ptr(self):
        self._set._ptr                   # the set not yet freed
        return self._h

    def issue_grant(self, *, execution_id, command, kind, scope, grant_class, target,
                    cwd=None, expires_at_ms=0):
        """Mint a single-spawn token for one Gated capability (after your own
        approval).  Returns the token string."""
        req = _n.GrantRequest(_n.GRANT_REQUEST_VERSION, _b(execution_id), _b(command), _b(cwd),
                              _b(kind), _b(scope), _b(grant_class), _b(target),
                              int(expires_at_ms))
        tok = ctypes.create_string_buffer(_n.GRANT_TOKEN_SIZE)
        _call(_lib.sbx_executor_issue_grant, self._ptr, ctypes.byref(req), tok, len(tok))
        return tok.value.decode("ascii")

    def grant_command(self, execution_id, command, cwd=None, expires_at_ms=0):
        """A command.start.v1 token for exactly this normalized command."""
        return self.issue_grant(execution_id=execution_id, command=command,
                                kind="command.execute", scope=command,
                                grant_class=GrantClass.COMMAND_START, target=command,
                                cwd=cwd, expires_at_ms=expires_at_ms)

    def run(self, command=None, *, argv=None, execution_id=None, cwd=None, tokens=(),
            input=None, output_cap=0, timeout=None, env=None, observe=False,
            observe_reads=False):
        """Run a shell command (/bin/sh -c command) or an argv, confined and
        widened by tokens for this run only; output is captured.  observe,
        observe_reads: as for spawn() (an observed run is a cold spawn, never
        the warm zygote); the result's events and usage say what was refused
        and used."""
        if (command is None) == (argv is None):
            raise ValueError("pass exactly one of command and argv")
        tokens = list(tokens)
        o = _n.RunOptions()
        o.version = _n.RUN_OPTIONS_VERSION
        o.execution_id = _b(execution_id)
        o.cwd = _b(cwd)
        o.command = _b(command)
        o.argv = _strv(argv) if argv is not None else None
        o.tokens = _strv(tokens)
        o.n_tokens = len(tokens)
        data = bytes(input) if input is not None else None
        if data:
            buf = ctypes.create_string_buffer(data, len(data))
            o.stdin_data = ctypes.cast(buf, ctypes.c_void_p)
            o.stdin_len = len(data)
        o.output_cap = int(output_cap)
        o.timeout_ms = _ms(timeout, "timeout")
        o.envp = _env_list(env)
        o.flags = _spawn_flags(observe, observe_reads)
        res = _n.RunResult()
        err = _n.Error()
        try:
            code = _lib.sbx_executor_run(self._ptr, ctypes.byref(o), ctypes.byref(res),
                                         ctypes.byref(err))
            if code != 0:
                _raise(code, err)
            events, usage = Events(), None
            if res.version >= 2:
                events = Events([Event._from_c(res.events[i]) for i in range(res.n_events)]
                                if res.events else [], res.events_dropped)
                usage = Usage._from_c(res.usage)
            return RunResult(
                bool(res.exited), res.exit_code, res.signal, bool(res.timed_out),
                bool(res.cancelled),
                ctypes.string_at(res.out, res.out_len) if res.out else b"",
                ctypes.string_at(res.err, res.err_len) if res.err else b"",
                bool(res.out_truncated), bool(res.err_truncated),
                GuaranteeReport._from_c(res.guarantees),
                _enum_or_int(DenialClass, res.denial), res.marker.decode("utf-8", "replace"),
                events, usage)
        finally:
            _lib.sbx_run_result_free(ctypes.byref(res))

    def cancel(self, execution_id=None):
        """Kill the running commands of execution_id (every one for None)."""
        _call(_lib.sbx_executor_cancel, self._ptr, _b(execution_id))


class ExecutorSet(_Handle):
    """Runs commands under one profile; one Executor per key.  close() (or
    leaving `with`) revokes every grant, kills what runs and removes the
    set's directories; the memory goes with the last reference."""
    _free_name = "sbx_executor_set_free"

    def __init__(self, profile, scratch_root, max_executors=1, *, grant_ttl=None,
                 backend=Backend.AUTO):
        o = _n.ExecutorSetOptions(_n.EXECUTOR_SET_OPTIONS_VERSION, _b(scratch_root),
                                  int(max_executors), _ms(grant_ttl, "grant_ttl"),
                                  int(backend), int(WindowsMode.AUTO), None)
        h = ctypes.c_void_p()
        _call(_lib.sbx_executor_set_new, profile._ptr, ctypes.byref(o), ctypes.byref(h))
        super().__init__(h)
        self._executors = {}

    def get(self, key):
        """The executor for key, made on first use."""
        ex = self._executors.get(key)
        if ex is None:
            h = ctypes.c_void_p()
            _call(_lib.sbx_executor_set_get, self._ptr, _b(key), ctypes.byref(h))
            ex = self._executors.setdefault(key, Executor(self, h, key))
        return ex

    def close(self):
        """Revoke, kill, remove (idempotent); later calls raise E_CLOSED.
        The handle itself is freed when the set is collected."""
        h = getattr(self, "_h", None)
        if h is not None and h.value:
            _call(_lib.sbx_executor_set_close, h)

    def __del__(self):
        try:
            _Handle.close(self)          # sbx_executor_set_free closes too
        except Exception:
            pass
