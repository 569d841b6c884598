"""Subject server of the subject protocol (docs/subject-protocol.md) for a Python submission.

Started as `python3.11 -I -B -X pycache_prefix=/tmp/pycache subject.py <tools|-> <deps|->
<absolute module path>` inside the sandbox. Invariants:
- The submission module is loaded by file path under its stem name (a `money/` package or a
  `money.pyc` beside `money.py` can never shadow it) and registered in sys.modules; its folder is
  appended *last* to sys.path, for its own sibling imports only.
- Requests are read, one at a time, from a private duplicate of fd 0, and fd 0 becomes
  /dev/null, so submission code reading stdin gets EOF instead of the host's requests. Answers
  are whole lines written to a private duplicate of fd 3 (the submission closing fd 3 does not
  cut the channel). stdout and stderr are evidence only.
- Requests are data: decoded by bouts_codec, never evaluated or unpickled; only exported
  functions (and namespace members) can be called.
- SystemExit or KeyboardInterrupt raised by submission code *during a call* (`sys.exit(0)` in a
  function) ends the subject: no answer is written and the process exits with code 70, so the
  host reports the call as a crash. Answering `throw` would hand the trusted test an exception it
  might expect and accept (`pytest.raises(BaseException)`), and a quiet exit 0 would look like
  success; a function that ends its process has no return value to compare. The same code ends
  the subject when an answer cannot be represented within the protocol's limits (a result over
  16 MiB, an integer of more than 4,300 digits); stderr says why.
- After a load-error frame the subject exits (code 0): there is nothing to serve.
"""

import asyncio
import builtins
import gc
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import types
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bouts_codec import (  # noqa: E402  (the harness folder is only on sys.path for this import)
    GraphError,
    LimitError,
    LineReader,
    decode_graph,
    dump_frame,
    encode_graph,
    encode_reply,
    load_frame,
    write_all,
)
import bouts_observe  # noqa: E402

del sys.path[0]

EXIT_ENDED = 70
HTTP_UNSUPPORTED = "HTTP subjects are only supported for node22"
_DATA = (type(None), bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set,
         frozenset, Decimal, BaseException)

_answers = None


def end(code, message=None):
    """Ends the subject now: no atexit handler or finalizer of the submission runs."""
    if message:
        try:
            os.write(2, f"bouts subject: {message}\n".encode("utf-8", "replace"))
        except OSError:
            pass
    flush()
    os._exit(code)


def flush():
    """Flushes what the submission printed, so the evidence is complete and in order."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def send(frame):
    try:
        data = dump_frame(frame)
    except LimitError as e:
        end(EXIT_ENDED, f"the answer to request {frame.get('id')} cannot be sent: {e}")
    try:
        write_all(_answers, data)
    except OSError as e:
        end(EXIT_ENDED, f"the answer channel is closed: {e}")


# ---------------------------------------------------------------------------------------------
# Effects


# The built-ins Effects uses, captured before the submission loads: a call that replaces
# builtins.vars or builtins.dict cannot make the probe read a doctored copy (undo() restores
# the builtins module from these).
_vars, _dict, _len, _zip, _all, _sorted, _set = vars, dict, len, zip, all, sorted, set


class Effects:
    """Snapshots the builtins module (and the dicts of common built-in types) before a call;
    after it, reports every added, changed or removed name as pollution and undoes it.

    Python code cannot set attributes on built-in types (`int.x = 1` is a TypeError: their
    dicts are read-only mappingproxies), so in practice only the builtins module can be
    polluted. Writing into a type's dict takes gc.get_referents or ctypes tricks; such
    additions are detected too and undone best-effort (then PyType_Modified clears the
    attribute caches)."""

    TYPES = (object, type, int, float, complex, bool, str, bytes, bytearray, list, tuple, dict,
             set, frozenset, BaseException, Exception)

    def __init__(self):
        self.before = {}
        self.types = []

    def snapshot(self):
        self.before = _dict(_vars(builtins))
        self.types = [_dict(t.__dict__) for t in self.TYPES]

    def undo(self):
        names = []
        current = _vars(builtins)
        before = self.before
        for name in [n for n in current if n not in before]:
            names.append(f"builtins.{name}")
            del current[name]
        for name, value in before.items():
            if current.get(name, _MISSING) is not value:
                names.append(f"builtins.{name}")
                current[name] = value
        for t, saved in _zip(self.TYPES, self.types):
            now = t.__dict__
            if _len(now) == _len(saved) and _all(
                now.get(k, _MISSING) is v for k, v in saved.items()
            ):
                continue
            changed = [k for k in now if k not in saved]
            changed += [k for k, v in saved.items() if now.get(k, _MISSING) is not v]
            names += [f"{t.__name__}.{k}" for k in changed]
            _restore_type(t, saved)
        self.before, self.types = {}, []
        return _sorted(_set(names))


_MISSING = object()


def _restore_type(t, saved):
    for ref in gc.get_referents(t.__dict__):
        if isinstance(ref, dict):
            ref.clear()
            ref.update(saved)
            break
    try:
        import ctypes

        ctypes.pythonapi.PyType_Modified(ctypes.py_object(t))
    except Exception:
        sys._clear_type_cache()


# ---------------------------------------------------------------------------------------------
# Loading and exports


def load(path):
    """(module, None) or (None, the exception that stopped the import)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    loader = importlib.machinery.SourceFileLoader(stem, path)
    spec = importlib.util.spec_from_file_location(stem, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[stem] = module
    try:
        loader.exec_module(module)
    except BaseException as e:  # SystemExit at import is a load error too
        sys.modules.pop(stem, None)
        return None, e
    return module, None


def public_names(obj, is_module):
    if is_module:
        names = vars(obj).get("__all__")
        if isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names):
            return [n for n in names if hasattr(obj, n) and not _dunder(n)]
        return [n for n in list(vars(obj)) if isinstance(n, str) and not n.startswith("_")]
    try:
        return [n for n in dir(obj) if isinstance(n, str) and not n.startswith("_")]
    except Exception:
        return []


def _dunder(name):
    return name.startswith("__") and name.endswith("__")


class Exports:
    """The ready frame's exports, and the callables they name ("split", "calc.add")."""

    def __init__(self, module, own_dir, library_dirs):
        self.own_dir = own_dir
        self.library_dirs = library_dirs
        self.callables = {}
        self.exports = {}
        for name in public_names(module, True):
            try:
                value = getattr(module, name)
            except Exception:
                continue
            export = self.describe(value, (name,), True)
            if export is not None:
                self.exports[name] = export

    def own_module(self, module):
        """True for a module of the submission (not the standard library or a dependency)."""
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            return False
        path = os.path.abspath(path)
        if any(path.startswith(d + os.sep) for d in self.library_dirs):
            return False
        return path.startswith(self.own_dir + os.sep)

    def describe(self, value, path, top):
        if isinstance(value, type):
            return {"kind": "class"}
        if isinstance(value, types.ModuleType):
            if top and self.own_module(value):
                return self.namespace(value, path, True)
            return None
        if callable(value):
            self.callables[".".join(path)] = path
            return {"kind": "function"}
        if top and not isinstance(value, _DATA) and self.has_callable_members(value):
            return self.namespace(value, path, False)
        try:
            graph, _ = encode_graph([value])
        except Exception:
            return None
        return {"kind": "value", "value": graph}

    @staticmethod
    def has_callable_members(value):
        for name in public_names(value, False):
            try:
                if callable(getattr(value, name)):
                    return True
            except Exception:
                pass
        return False

    def namespace(self, obj, path, is_module):
        members = {}
        for name in public_names(obj, is_module):
            if "." in name:
                continue
            try:
                member = getattr(obj, name)
            except Exception:
                continue
            export = self.describe(member, path + (name,), False)
            if export is not None:
                members[name] = export
        return {"kind": "namespace", "members": members}

    def ready_frame(self):
        frame = {"t": "ready", "v": 1, "exports": self.exports}
        try:
            dump_frame(frame)
        except LimitError:
            # Too large: drop the values, keep what can be called.
            frame["exports"] = _without_values(self.exports)
        return frame

    def resolve(self, module, name):
        path = self.callables.get(name) if isinstance(name, str) else None
        if path is None:
            raise TypeError(f"{name!r} is not a function exported by the subject")
        target = getattr(module, path[0])
        for part in path[1:]:
            target = getattr(target, part)
        return target


def _without_values(exports):
    out = {}
    for name, export in exports.items():
        if export["kind"] == "namespace":
            out[name] = {"kind": "namespace", "members": _without_values(export["members"])}
        elif export["kind"] != "value":
            out[name] = export
    return out


# ---------------------------------------------------------------------------------------------
# Serving


async def _settle(awaitable):
    return await awaitable


def answer_throw(rid, error, request_objects=()):
    reply = encode_reply(list(request_objects), error)
    send({"t": "throw", "id": rid, "async": False, "effects": {"pollution": []}, "reply": reply})


def serve_call(frame, rid, module, exports, effects):
    try:
        args, objects = decode_graph(frame.get("args"))
    except GraphError as e:
        answer_throw(rid, TypeError(f"the subject could not read the arguments: {e}"))
        return
    is_async = False
    effects.snapshot()
    try:
        target = exports.resolve(module, frame.get("name"))
        result = target(*args)
        if inspect.isawaitable(result):
            is_async = True
            result = asyncio.run(_settle(result))
        kind = "return"
    except (SystemExit, KeyboardInterrupt) as e:
        # See the module docstring: a call that ends the process is a crash, not an answer.
        end(EXIT_ENDED, f"the submission raised {type(e).__name__} during a call; ending")
    except BaseException as e:
        kind, result = "throw", e
    pollution = effects.undo()
    try:
        reply = encode_reply(objects, result)
    except Exception as e:  # over the limits, or an object whose introspection fails
        end(EXIT_ENDED, f"the {kind} value of request {rid} cannot be sent: {e!r}")
    del result
    send(
        {
            "t": kind,
            "id": rid,
            "async": is_async,
            "effects": {"pollution": pollution},
            "reply": reply,
        }
    )


def serve(reader, module, exports):
    effects = Effects()
    while True:
        try:
            line = reader.readline()
        except LimitError as e:
            end(EXIT_ENDED, f"a request is over the protocol limits: {e}")
        if line is None:
            end(0)
        if not line.strip():
            continue
        try:
            frame = load_frame(line)
        except GraphError as e:
            end(EXIT_ENDED, f"a request is not a valid frame: {e}")
        t, rid = frame.get("t"), frame.get("id")
        if not isinstance(t, str):
            continue  # an observation record ({"k": …}) or noise: not part of the protocol
        if type(rid) is not int or rid <= 0:
            end(EXIT_ENDED, f"a {t!r} request without a positive integer id")
        if t == "call":
            serve_call(frame, rid, module, exports, effects)
        elif t in ("http-open", "http-close"):
            answer_throw(rid, TypeError(HTTP_UNSUPPORTED))
        else:
            answer_throw(rid, TypeError(f"unknown request {t[:40]!r}"))
        flush()


def main():
    global _answers
    if len(sys.argv) != 4:
        end(64, "usage: subject.py <tools|-> <deps|-> <module path>")
    tools, deps, path = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    requests = os.dup(0)
    _answers = os.dup(3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    library_dirs = [os.path.abspath(d) for d in (tools, deps) if d != "-"]
    if tools != "-":
        sys.path.insert(0, tools)
    if deps != "-":
        sys.path.insert(1 if tools != "-" else 0, deps)
    own_dir = os.path.dirname(path)
    sys.path.append(own_dir)

    # Blocked network attempts, /proc probing and reads of /work/tests are cited (on fd 3).
    bouts_observe.install()
    module, error = load(path)
    if module is None:
        try:
            graph, _ = encode_graph([error])
        except Exception:
            graph, _ = encode_graph([ImportError(f"{type(error).__name__} while importing")])
        send({"t": "load-error", "v": 1, "error": graph})
        end(0)
    exports = Exports(module, own_dir, library_dirs)
    flush()
    send(exports.ready_frame())
    serve(LineReader(requests), module, exports)


main()
