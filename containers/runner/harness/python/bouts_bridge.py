"""Trusted side of the subject protocol (docs/subject-protocol.md): stand-ins forwarding calls.

The runner writes a bridge module into the trusted test process, e.g. `money.py`:

    import bouts_bridge
    bouts_bridge.install("money", <exports of the subject's ready frame>, globals())

Invariants:
- No submission code runs here. Arguments leave as a Graph (functions and opaque objects are
  refused with a TypeError naming the argument); answers come back as data, decoded by
  bouts_codec (never pickle, marshal or eval).
- Calls are synchronous: a `call` frame on fd 3, then a blocking os.read of fd 0 until the whole
  answer line has arrived. fd 0 must stay the answer pipe while tests run: pytest's default fd
  capture replaces fd 0 with /dev/null, so run pytest with `--capture=no`/`-s`, or call
  configure(answers_fd=os.dup(0)) before pytest starts.
- A fault (sent by the host, or an answer this side cannot read) raises SubjectFault, a
  BaseException that is not an Exception (`pytest.raises(Exception)` and `except Exception:`
  cannot accept it), and is remembered: take_faults() lets the harness fail the test whatever
  the test did with the exception.
- Decoded exceptions are always Exception subclasses: a subject cannot raise SystemExit,
  KeyboardInterrupt or GeneratorExit here, nor stop pytest.
"""

import itertools
import threading
import types

from bouts_codec import (
    GraphError,
    LimitError,
    LineReader,
    apply_reply,
    decode_graph,
    dump_frame,
    encode_graph,
    load_frame,
    write_all,
)

__all__ = [
    "SubjectFault",
    "configure",
    "install",
    "pollution",
    "reset",
    "take_faults",
]

_requests_fd = 3
_answers_fd = 0
_reader = None
_lock = threading.Lock()
_ids = itertools.count(1)
_pollution = []
_faults = []


class SubjectFault(BaseException):
    """The subject crashed, hung, broke the protocol or is unavailable: the test fails.

    `fault` is one of crashed, timeout, protocol, unavailable; `message` says more."""

    def __init__(self, fault, message):
        super().__init__(f"subject {fault}: {message}")
        self.fault = fault
        self.message = message


SubjectFault.__module__ = "bouts_subject"


def configure(requests_fd=None, answers_fd=None):
    """Changes the descriptors used for requests (default 3) and answers (default 0)."""
    global _requests_fd, _answers_fd, _reader
    if requests_fd is not None:
        _requests_fd = requests_fd
    if answers_fd is not None:
        _answers_fd = answers_fd
        _reader = None


def pollution():
    """The pollution names reported by the subject since the last call (or reset()), cleared."""
    names = list(dict.fromkeys(_pollution))
    _pollution.clear()
    return names


def take_faults():
    """The faults raised since the last call (or reset()), as dicts with fault and message."""
    faults = list(_faults)
    _faults.clear()
    return faults


def reset():
    """Forgets pollution and faults (the harness calls it when a test starts)."""
    _pollution.clear()
    _faults.clear()


def _fault(kind, message):
    __tracebackhide__ = True
    _faults.append({"fault": kind, "message": message})
    raise SubjectFault(kind, message)


def _read_answer(rid):
    global _reader
    __tracebackhide__ = True
    if _reader is None:
        _reader = LineReader(_answers_fd)
    while True:
        try:
            line = _reader.readline()
        except LimitError as e:
            _fault("protocol", str(e))
        except OSError as e:
            _fault("unavailable", f"cannot read the answer channel: {e}")
        if line is None:
            _fault("unavailable", "the host closed the answer channel")
        if not line.strip():
            continue
        try:
            frame = load_frame(line)
        except GraphError as e:
            _fault("protocol", f"an unreadable answer: {e}")
        if not isinstance(frame.get("t"), str):
            continue  # an observation record: not part of the protocol
        if frame.get("id") != rid:
            _fault("protocol", f"an answer for request {frame.get('id')!r}, not {rid}")
        return frame


async def _settled(value, raised):
    if raised:
        raise value
    return value


def _call(name, args, bases):
    __tracebackhide__ = True
    graph, objects = encode_graph(list(args), refuse_callables=True)
    rid = next(_ids)
    try:
        data = dump_frame({"t": "call", "id": rid, "name": name, "args": graph})
    except LimitError as e:
        raise TypeError(f"cannot send the arguments of {name}() to the subject: {e}") from None
    # Tests may call from several threads (e.g. a concurrency oracle): one round trip at a time.
    with _lock:
        try:
            write_all(_requests_fd, data)
        except OSError as e:
            _fault("unavailable", f"cannot send the call to the host: {e}")
        frame = _read_answer(rid)
    t = frame["t"]
    if t == "fault":
        kind, message = frame.get("fault"), frame.get("message")
        _fault(
            kind[:40] if isinstance(kind, str) else "protocol",
            message[:2000] if isinstance(message, str) else "",
        )
    if t not in ("return", "throw"):
        _fault("protocol", f"an unexpected answer {t[:40]!r} to a call")
    effects = frame.get("effects", {})
    names = effects.get("pollution", []) if isinstance(effects, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        _fault("protocol", "malformed effects")
    _pollution.extend(n[:200] for n in names[:1000])
    is_async = frame.get("async", False)
    if type(is_async) is not bool:
        _fault("protocol", "malformed async flag")
    try:
        value = apply_reply(frame.get("reply"), objects, bases)
    except GraphError as e:
        _fault("protocol", f"an unreadable reply: {e}")
    raised = t == "throw"
    if raised and not isinstance(value, Exception):
        _fault("protocol", "a throw without an exception")
    if is_async:
        return _settled(value, raised)
    if raised:
        raise value
    return value


def _function(module_name, call_name, display, bases):
    def stand_in(*args, **kwargs):
        __tracebackhide__ = True
        if kwargs:
            raise TypeError(
                f"{display}() cannot take keyword arguments through the subject protocol; "
                "pass them by position"
            )
        return _call(call_name, args, bases)

    stand_in.__name__ = stand_in.__qualname__ = display
    stand_in.__module__ = module_name
    stand_in.__doc__ = f"Calls {call_name} in the subject (arguments and results as data)."
    return stand_in


def _class(module_name, name):
    """A stand-in for a class of the subject: calling it is a TypeError. It is an Exception
    subclass so that decoded exceptions of that class name derive from it: `pytest.raises
    (MoneyError)` and `except MoneyError:` work for a `from money import MoneyError`."""

    def __new__(cls, *args, **kwargs):
        if cls is stand_in:
            raise TypeError(
                f"{name} is a class of the subject; it cannot be instantiated in the test process"
            )
        return super(stand_in, cls).__new__(cls, *args)

    stand_in = type(name, (Exception,), {"__new__": __new__, "__module__": module_name})
    return stand_in


def _valid_name(name):
    if not isinstance(name, str) or name == "":
        return False
    return not (name.startswith("__") and name.endswith("__"))


def _kind(export):
    return export.get("kind") if isinstance(export, dict) else None


def install(module_name, exports, namespace):
    """Defines the stand-ins of the subject's exports in namespace (the bridge module's
    globals()). exports is the ready frame's exports (a dict, or its JSON text)."""
    if isinstance(exports, (str, bytes)):
        exports = load_frame(exports)
    if not isinstance(exports, dict):
        raise ImportError(f"{module_name}: the subject's exports are not an object")
    bases = {}
    classes = {}

    def class_of(name):
        cls = classes.get(name)
        if cls is None:
            try:
                cls = classes[name] = _class(module_name, name)
            except (TypeError, ValueError):
                return None
        bases.setdefault(name, cls)
        return cls

    # Classes first, so that values decoded below already see their stand-ins.
    for name, export in exports.items():
        if _valid_name(name) and _kind(export) == "class":
            class_of(name)

    def stand_in(call_name, display, export, top):
        kind = _kind(export)
        if kind == "function":
            return _function(module_name, call_name, display, bases)
        if kind == "class":
            cls = class_of(display)
            return _SKIP if cls is None else cls
        if kind == "value":
            try:
                roots, _ = decode_graph(export.get("value"), bases)
                if len(roots) != 1:
                    raise GraphError("a value export has one root")
            except GraphError as e:
                raise ImportError(f"{module_name}.{call_name}: an unreadable value ({e})") from None
            return roots[0]
        if kind == "namespace" and top and isinstance(export.get("members"), dict):
            members = {}
            for member, inner in export["members"].items():
                if _valid_name(member) and "." not in member:
                    value = stand_in(f"{call_name}.{member}", member, inner, False)
                    if value is not _SKIP:
                        members[member] = value
            return types.SimpleNamespace(**members)
        return _SKIP

    names = []
    for name, export in exports.items():
        if not _valid_name(name):
            continue
        value = stand_in(name, name, export, True)
        if value is not _SKIP:
            namespace[name] = value
            names.append(name)
    namespace["__all__"] = names


_SKIP = object()
