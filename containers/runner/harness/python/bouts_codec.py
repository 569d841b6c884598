"""Graph codec of the subject protocol (docs/subject-protocol.md) for Python values.

Shared by the subject (subject.py) and the trusted bridge (bouts_bridge.py). Invariants:
- Data only. Decoding builds None, bool, int, float, str, list, tuple, dict, set, frozenset,
  bytes, bytearray, Decimal, exceptions of builtin classes (or subclasses synthesized here under
  the sender's class name), opaque function stubs and plain attribute holders. Nothing named by
  the other side is imported, looked up outside `builtins`, evaluated, unpickled or called.
- Nothing is recursive: encoder and decoder walk work lists, so a 5,000-level nest is 5,000
  nodes and costs no stack.
- Shared references and cycles survive (an id() memo; the encoder keeps every object it has
  seen alive until it returns, so ids stay unique).
- Limits are checked on both sides: MAX_FRAME_BYTES a line, MAX_NODES nodes, MAX_ITEMS items or
  entries a node, integers of at most MAX_BIGINT_DIGITS digits. Malformed or oversized input
  raises GraphError (a ValueError); the trusted side turns it into a `protocol` fault.
- JSON never carries NaN or Infinity literals: non-finite floats and -0.0 travel as `$num`, and
  load_frame refuses the literals and numbers that overflow to infinity.
"""

import base64
import binascii
import builtins
import datetime
import decimal
import json
import math
import os
import types

MAX_FRAME_BYTES = 16 * 1024 * 1024
MAX_NODES = 1_000_000
MAX_ITEMS = 1_000_000
MAX_SAFE_INT = 2**53
MAX_BIGINT_DIGITS = 4300  # CPython's default int/str conversion limit (quadratic beyond it)
# Hashing a tuple recurses in C without a depth check: a 200,000-level nested tuple used as a
# dict key or set item overflows an 8 MiB stack. Tuples and frozensets nest at most this deep.
MAX_HASHABLE_DEPTH = 10_000
_NAME_LIMIT = 200
_CLASS_CACHE_LIMIT = 4096
_SUBJECT_MODULE = "bouts_subject"

_NUM_OUT = {"NaN": {"$num": "NaN"}, "inf": {"$num": "Infinity"}, "-inf": {"$num": "-Infinity"}}
_NEG_ZERO = {"$num": "-0"}
_NUM_IN = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}


class GraphError(ValueError):
    """A frame or graph that breaks the protocol."""


class LimitError(GraphError):
    """A frame or graph over the protocol's limits."""


def _clip(text, limit=_NAME_LIMIT):
    return text if len(text) <= limit else text[:limit]


def _is_dunder(key):
    return type(key) is str and key.startswith("__") and key.endswith("__")


def _safe_repr(value, limit=60):
    try:
        return _clip("".join((repr(value),)), limit)
    except Exception:
        return f"<{type(value).__name__}>"


def _safe_str(value):
    try:
        text = str(value)
        return text if type(text) is str else "".join((text,))
    except Exception:
        return f"<unprintable {type(value).__name__}>"


# ---------------------------------------------------------------------------------------------
# Frames


def _refuse_constant(name):
    raise GraphError(f"{name} is not a JSON value")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise GraphError(f"number out of range: {text[:40]}")
    return value


# Captured when the harness loads, before any submission code: a submission that replaces
# json.dumps, json.loads, os.write or os.read later changes nothing the harness writes or reads.
_json_dumps = json.dumps
_json_loads = json.loads
_os_write = os.write
_os_read = os.read


def dump_frame(frame):
    """One frame as a UTF-8 JSON line (with its newline); LimitError when over MAX_FRAME_BYTES."""
    try:
        data = _json_dumps(
            frame, ensure_ascii=False, allow_nan=False, separators=(",", ":")
        ).encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate in a str: escape it (\udXXX) so the line stays valid UTF-8.
        data = _json_dumps(frame, allow_nan=False, separators=(",", ":")).encode("ascii")
    if len(data) > MAX_FRAME_BYTES:
        raise LimitError(f"a frame of {len(data)} bytes is over the {MAX_FRAME_BYTES}-byte limit")
    return data + b"\n"


def load_frame(line):
    """Parses one line (bytes or str, without its newline) into a frame dict, or GraphError."""
    if len(line) > MAX_FRAME_BYTES:
        raise LimitError(f"a line of {len(line)} bytes is over the {MAX_FRAME_BYTES}-byte limit")
    try:
        text = line.decode("utf-8") if isinstance(line, (bytes, bytearray)) else line
        frame = _json_loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except GraphError:
        raise
    except (ValueError, RecursionError) as e:
        raise GraphError(f"not a JSON line: {_clip(str(e))}") from None
    if type(frame) is not dict:
        raise GraphError("a frame must be a JSON object")
    return frame


def write_all(fd, data):
    """Writes every byte of data to fd (os.write may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[_os_write(fd, view) :]


class LineReader:
    """Whole lines from a file descriptor, with blocking os.read and a buffered remainder."""

    def __init__(self, fd):
        self.fd = fd
        self._buf = bytearray()
        self._scanned = 0
        self._skipping = False

    def readline(self):
        """The next line without its newline, or None at end of input. A line over
        MAX_FRAME_BYTES raises LimitError once; the rest of it is then skipped."""
        while True:
            i = self._buf.find(b"\n", self._scanned)
            if i >= 0:
                line = bytes(self._buf[:i])
                del self._buf[: i + 1]
                self._scanned = 0
                if self._skipping:
                    self._skipping = False
                    continue
                return line
            self._scanned = len(self._buf)
            if len(self._buf) > MAX_FRAME_BYTES:
                self._buf.clear()
                self._scanned = 0
                if not self._skipping:
                    self._skipping = True
                    raise LimitError(f"a line over the {MAX_FRAME_BYTES}-byte limit")
            chunk = _os_read(self.fd, 1 << 20)
            if not chunk:
                return None
            self._buf += chunk


# ---------------------------------------------------------------------------------------------
# Encoding


class _Encoder:
    """Python values to Values and Nodes. strict (the trusted bridge's arguments) refuses
    callables and objects without data fields with a TypeError naming where they were."""

    def __init__(self, strict, inputs=None):
        self.strict = strict
        self.nodes = []
        self.objects = []  # the encoded objects, by node index (kept alive: ids stay unique)
        self.memo = {}  # id(object) -> its Value ({"$ref": n} or {"$in": i})
        self.parents = []  # (parent node, key, how) by node index, to name a refused value
        if inputs:
            for i, obj in enumerate(inputs):
                self.memo.setdefault(id(obj), {"$in": i})

    def _limit(self, message):
        if self.strict:
            return TypeError(f"cannot send to the subject: {message}")
        return LimitError(message)

    def value(self, x, parent, key, how):
        t = type(x)
        if t is str or t is bool or x is None:
            return x
        if t is int:
            return x if -MAX_SAFE_INT <= x <= MAX_SAFE_INT else self._bigint(x)
        if t is float:
            return self._float(x)
        ref = self.memo.get(id(x))
        if ref is not None:
            return ref
        # Subclasses of the scalar types travel as their plain values.
        if isinstance(x, bool):
            return bool(x)
        if isinstance(x, int):
            return self.value(int.__index__(x), parent, key, how)
        if isinstance(x, float):
            return self._float(float.__float__(x))
        if isinstance(x, str):
            return "".join((x,))
        n = len(self.objects)
        if n >= MAX_NODES:
            raise self._limit(f"more than {MAX_NODES} objects")
        ref = {"$ref": n}
        self.memo[id(x)] = ref
        self.objects.append(x)
        self.parents.append((parent, key, how))
        return ref

    def _bigint(self, x):
        try:
            return {"$bigint": int.__repr__(x)}
        except ValueError:
            raise self._limit(f"an integer of more than {MAX_BIGINT_DIGITS} digits") from None

    @staticmethod
    def _float(x):
        if x != x:
            return _NUM_OUT["NaN"]
        if x == math.inf:
            return _NUM_OUT["inf"]
        if x == -math.inf:
            return _NUM_OUT["-inf"]
        if x == 0.0 and math.copysign(1.0, x) < 0:
            return _NEG_ZERO
        return x

    def path(self, n):
        """Where node n was among the arguments, e.g. `argument 2['on_change'][0]`."""
        parts = []
        while True:
            parent, key, how = self.parents[n]
            if how == "root":
                parts.append(f"argument {key + 1}")
                break
            if how == "index":
                parts.append(f"[{key}]")
            elif how == "value":
                parts.append(f"[{_safe_repr(key)}]")
            elif how == "key":
                parts.append(f" (the key {_safe_repr(key)})")
            elif how == "attr":
                parts.append(f".{key}")
            elif how == "args":
                parts.append(f".args[{key}]")
            elif how == "set":
                parts.append(" (a set item)")
            elif how == "cause":
                parts.append(".__cause__")
            else:
                parts.append(f" ({how})")
            n = parent
        return "".join(reversed(parts))

    def items(self, seq, n, how="index"):
        if len(seq) > MAX_ITEMS:
            raise self._limit(f"a container of more than {MAX_ITEMS} items")
        value = self.value
        return [value(v, n, j, how) for j, v in enumerate(seq)]

    def node(self, x, n):
        """The Node describing x (its children become Values, new objects get node numbers)."""
        value = self.value
        if isinstance(x, list):
            return {"k": "list", "items": self.items(x, n)}
        if isinstance(x, tuple):
            return {"k": "tuple", "items": self.items(x, n)}
        if isinstance(x, dict):
            if len(x) > MAX_ITEMS:
                raise self._limit(f"a dict of more than {MAX_ITEMS} entries")
            return {
                "k": "dict",
                "entries": [
                    [value(k, n, k, "key"), value(v, n, k, "value")] for k, v in list(x.items())
                ],
            }
        if isinstance(x, (set, frozenset)):
            node = {"k": "set", "items": self.items(list(x), n, "set")}
            node["frozen"] = isinstance(x, frozenset)
            return node
        if isinstance(x, (bytes, bytearray)):
            if len(x) > MAX_FRAME_BYTES:
                raise self._limit(f"a bytes value over {MAX_FRAME_BYTES} bytes")
            kind = "bytearray" if isinstance(x, bytearray) else "bytes"
            return {"k": "bytes", "type": kind, "b64": base64.b64encode(x).decode("ascii")}
        if isinstance(x, decimal.Decimal):
            return {"k": "decimal", "value": decimal.Decimal.__str__(x)}
        if isinstance(x, BaseException):
            return self._error(x, n)
        if callable(x):
            if self.strict:
                what = "a class" if isinstance(x, type) else "a function"
                raise TypeError(
                    f"{self.path(n)} is {what}; functions cannot be sent to the subject"
                )
            try:
                name = getattr(x, "__name__", None)
            except Exception:
                name = None
            if not isinstance(name, str):
                name = type(x).__name__
            return {"k": "function", "name": _clip("".join((name,)))}
        return self._object(x, n)

    def _error(self, x, n):
        cls = type(x)
        node = {
            "k": "error",
            "name": _clip(cls.__name__),
            "chain": [_clip(c.__name__) for c in cls.__mro__ if c is not object],
            "message": _safe_str(x),
        }
        try:
            args = x.args
        except Exception:
            args = None
        if isinstance(args, tuple):
            node["args"] = self.items(args, n, "args")
        cause = x.__cause__
        if cause is not None:
            node["cause"] = self.value(cause, n, None, "cause")
        return node

    def _object(self, x, n):
        try:
            fields = x.__dict__
        except Exception:
            fields = None
        if not isinstance(fields, dict) or (self.strict and isinstance(x, types.ModuleType)):
            if self.strict:
                raise TypeError(
                    f"{self.path(n)} is a {type(x).__name__} object, which cannot be sent to "
                    "the subject (only data: None, bool, int, float, str, list, tuple, dict, "
                    "set, bytes, Decimal, exceptions and objects with a __dict__)"
                )
            fields = {}
        entries = [
            (k, v)
            for k, v in list(fields.items())
            if type(k) is str and not _is_dunder(k)
        ]
        if len(entries) > MAX_ITEMS:
            raise self._limit(f"an object of more than {MAX_ITEMS} fields")
        value = self.value
        return {
            "k": "object",
            "proto": {"class": _clip(type(x).__name__)},
            "entries": [[k, value(v, n, k, "attr")] for k, v in entries],
        }

    def drain(self):
        """Describes every object numbered so far, including those found on the way."""
        while len(self.nodes) < len(self.objects):
            n = len(self.nodes)
            self.nodes.append(self.node(self.objects[n], n))


def encode_graph(roots, inputs=None, refuse_callables=False):
    """Encodes the values in roots as a Graph: returns (graph, objects) where objects[n] is the
    Python object of node n (the caller's objects, for apply_reply). With inputs (a list of
    objects), those objects are written as {"$in": i} instead of new nodes. refuse_callables
    (the trusted bridge's arguments) turns callables, objects without a __dict__ and anything
    over the limits into a TypeError naming the argument."""
    enc = _Encoder(refuse_callables, inputs)
    values = [enc.value(r, -1, i, "root") for i, r in enumerate(roots)]
    enc.drain()
    return {"roots": values, "nodes": enc.nodes}, enc.objects


def encode_reply(request_objects, result):
    """A Reply: the state after the call of every object of the request (inputs[i] for
    request_objects[i]), and result (a return value or an exception) as roots[0]."""
    enc = _Encoder(False, request_objects)
    inputs = [enc.node(obj, -1) for obj in request_objects]
    root = enc.value(result, -1, 0, "root")
    enc.drain()
    return {"inputs": inputs, "nodes": enc.nodes, "roots": [root]}


# ---------------------------------------------------------------------------------------------
# Decoding

_exception_classes = {}
_data_classes = {}


def _make_str(base):
    def __str__(self):
        message = self.__dict__.get("__bouts_message__")
        return message if isinstance(message, str) else base.__str__(self)

    return __str__


def _exception_class(name, base, stand_ins):
    """base itself when name is its name; else a subclass of (stand-ins…, base) named name."""
    if not stand_ins and name == base.__name__:
        return base
    key = (name, base, stand_ins)
    cls = _exception_classes.get(key)
    if cls is None:
        body = {"__module__": _SUBJECT_MODULE, "__str__": _make_str(base)}
        try:
            cls = type(name, stand_ins + (base,), body)
        except (TypeError, ValueError):
            try:
                cls = type(name, (base,), body)
            except (TypeError, ValueError):
                return base
        if len(_exception_classes) < _CLASS_CACHE_LIMIT:
            _exception_classes[key] = cls
    return cls


def _data_class(name):
    """An attribute holder named after the sender's class (not that class: isinstance fails)."""
    cls = _data_classes.get(name)
    if cls is None:
        body = {"__module__": _SUBJECT_MODULE, "__hash__": object.__hash__}
        try:
            cls = type(name, (types.SimpleNamespace,), body)
        except (TypeError, ValueError):
            cls = type("object", (types.SimpleNamespace,), body)
        if len(_data_classes) < _CLASS_CACHE_LIMIT:
            _data_classes[name] = cls
    return cls


def _opaque_function(name):
    def function(*args, **kwargs):
        raise TypeError(f"{name}() belongs to the subject and cannot be called here")

    function.__name__ = function.__qualname__ = name
    function.__module__ = _SUBJECT_MODULE
    return function


def _builtin_exception(chain):
    """(index in chain, class) of the nearest builtin exception class; only Exception
    subclasses are produced, so a subject can never raise SystemExit, KeyboardInterrupt or
    GeneratorExit in the trusted process (those become Exception subclasses of that name)."""
    table = vars(builtins)
    for i, name in enumerate(chain):
        cls = table.get(name)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            return i, (cls if issubclass(cls, Exception) else Exception)
    return len(chain), Exception


def _str_field(node, field, limit=None):
    value = node.get(field)
    if type(value) is not str:
        raise GraphError(f"{node.get('k')} node: {field} must be a string")
    if limit is not None and len(value) > limit:
        value = value[:limit]
    return value


def _list_field(node, field):
    value = node.get(field)
    if type(value) is not list:
        raise GraphError(f"{node.get('k')} node: {field} must be a list")
    if len(value) > MAX_ITEMS:
        raise LimitError(f"a node of more than {MAX_ITEMS} items")
    return value


def _entries_field(node):
    entries = _list_field(node, "entries")
    for pair in entries:
        if type(pair) is not list or len(pair) != 2:
            raise GraphError(f"{node.get('k')} node: entries must be [key, value] pairs")
    return entries


_KINDS = frozenset(
    ["list", "array", "dict", "map", "object", "tuple", "error", "set", "bytes", "decimal",
     "function", "date", "regexp"]
)


class _Decoder:
    """Nodes to Python objects in three passes: (1) leaves and empty mutable containers,
    (2) tuples, frozensets and exceptions in dependency order (a cycle through them alone is
    refused: CPython cannot build it), (3) the contents of the mutable containers."""

    def __init__(self, nodes, caller=None, exception_bases=None):
        if type(nodes) is not list:
            raise GraphError("nodes must be a list")
        if len(nodes) > MAX_NODES:
            raise LimitError(f"more than {MAX_NODES} nodes")
        self.nodes = nodes
        self.caller = caller
        self.bases = exception_bases or {}
        self.objects = [None] * len(nodes)
        self.ready = bytearray(len(nodes))  # 0 not built, 1 being built, 2 built
        self.depth = {}  # nesting depth of the tuples and frozensets built so far

    # values

    def val(self, v):
        t = type(v)
        if t is int or t is str or t is float or t is bool or v is None:
            return v
        if t is dict and len(v) == 1:
            ((tag, arg),) = v.items()
            if tag == "$ref":
                if type(arg) is int and 0 <= arg < len(self.objects) and self.ready[arg] == 2:
                    return self.objects[arg]
                raise GraphError(f"bad reference {_clip(repr(arg), 40)}")
            if tag == "$in":
                if self.caller is not None and type(arg) is int and 0 <= arg < len(self.caller):
                    return self.caller[arg]
                raise GraphError(f"bad caller reference {_clip(repr(arg), 40)}")
            if tag == "$num":
                if type(arg) is str and arg in _NUM_IN:
                    return _NUM_IN[arg]
                raise GraphError("bad $num")
            if tag == "$bigint":
                if type(arg) is str and 0 < len(arg.lstrip("-")) <= MAX_BIGINT_DIGITS:
                    digits = arg[1:] if arg.startswith("-") else arg
                    if digits.isascii() and digits.isdigit():
                        return int(arg)
                raise GraphError("bad $bigint")
            if tag == "$undef":
                return None
        raise GraphError(f"not a value: {_clip(repr(v), 60)}")

    def _dep(self, v):
        """The node number v refers to when that node is not built yet, else None."""
        if type(v) is dict and len(v) == 1 and "$ref" in v:
            n = v["$ref"]
            if type(n) is int and 0 <= n < len(self.objects) and self.ready[n] != 2:
                return n
        return None

    # pass 1

    def create(self):
        later = []
        for n, node in enumerate(self.nodes):
            if type(node) is not dict:
                raise GraphError("a node must be an object")
            k = node.get("k")
            if type(k) is not str or k not in _KINDS:
                raise GraphError(f"unknown node kind {_clip(repr(k), 40)}")
            if k in ("list", "array"):
                _list_field(node, "items")
                obj = []
            elif k in ("dict", "map"):
                _entries_field(node)
                obj = {}
            elif k == "object":
                _entries_field(node)
                obj = self._holder(node)
            elif k == "tuple":
                _list_field(node, "items")
                later.append(n)
                continue
            elif k == "set":
                _list_field(node, "items")
                frozen = node.get("frozen", False)
                if type(frozen) is not bool:
                    raise GraphError("set node: frozen must be a boolean")
                if frozen:
                    later.append(n)
                    continue
                obj = set()
            elif k == "error":
                self._check_error(node)
                later.append(n)
                continue
            elif k == "bytes":
                obj = _bytes_of(node)
            elif k == "decimal":
                try:
                    obj = decimal.Decimal(_str_field(node, "value"))
                except decimal.InvalidOperation:
                    raise GraphError("decimal node: not a decimal") from None
            elif k == "function":
                obj = _opaque_function(_str_field(node, "name", _NAME_LIMIT) or "function")
            elif k == "date":
                obj = _date_of(node)
            else:  # regexp
                obj = _data_class("RegExp")(
                    source=_str_field(node, "source"), flags=_str_field(node, "flags")
                )
            self.objects[n] = obj
            self.ready[n] = 2
        return later

    def _holder(self, node):
        proto = node.get("proto")
        if type(proto) is dict and type(proto.get("class")) is str:
            return _data_class(_clip(proto["class"]))()
        return types.SimpleNamespace()

    def _check_error(self, node):
        _str_field(node, "name")
        _str_field(node, "message")
        chain = _list_field(node, "chain")
        if any(type(c) is not str for c in chain):
            raise GraphError("error node: chain must list class names")
        if "args" in node:
            _list_field(node, "args")

    # pass 2

    def _deps(self, node):
        return node["args"] if node["k"] == "error" and "args" in node else node.get("items", ())

    def build(self, later):
        ready = self.ready
        for start in later:
            if ready[start] == 2:
                continue
            stack = [start]
            while stack:
                n = stack[-1]
                if ready[n] == 2:
                    stack.pop()
                elif ready[n] == 0:
                    ready[n] = 1
                    for v in self._deps(self.nodes[n]):
                        m = self._dep(v)
                        if m is None:
                            continue
                        if ready[m] == 1:
                            raise GraphError("a cycle through immutable values only")
                        stack.append(m)
                else:
                    self.objects[n] = self._immutable(n, self.nodes[n])
                    ready[n] = 2
                    stack.pop()

    def _immutable(self, n, node):
        k = node["k"]
        if k == "error":
            return self._error(node)
        items = node["items"]
        deepest = 0
        for v in items:
            if type(v) is dict and "$ref" in v:
                deepest = max(deepest, self.depth.get(v["$ref"], 0))
        if deepest >= MAX_HASHABLE_DEPTH:
            raise LimitError(f"tuples or frozensets nested over {MAX_HASHABLE_DEPTH} levels")
        self.depth[n] = deepest + 1
        val = self.val
        if k == "tuple":
            return tuple([val(v) for v in items])
        try:
            return frozenset([val(v) for v in items])
        except TypeError:
            raise GraphError("an unhashable frozenset item") from None

    def _error(self, node):
        name = _clip(node["name"]) or "Error"
        message = node["message"]
        chain = node["chain"]
        at, base = _builtin_exception(chain)
        stand_ins = []
        for c in [name] + chain[:at]:
            cls = self.bases.get(c)
            if cls is not None and cls not in stand_ins:
                stand_ins.append(cls)
        cls = _exception_class(name, base, tuple(stand_ins))
        error = None
        if "args" in node:
            args = [self.val(a) for a in node["args"]]
            try:
                error = cls(*args)
            except Exception:
                error = None
        if error is None:
            try:
                error = cls(message)
            except Exception:
                cls = _exception_class(name, Exception, ())
                error = cls(message)
        if cls is not base and _safe_str(error) != message:
            # The sender's class had its own __str__: keep its text (pytest.raises(match=)).
            error.__dict__["__bouts_message__"] = message
        return error

    # pass 3

    def fill(self):
        val = self.val
        for n, node in enumerate(self.nodes):
            k = node["k"]
            obj = self.objects[n]
            try:
                if k in ("list", "array"):
                    obj.extend([val(v) for v in node["items"]])
                elif k in ("dict", "map"):
                    for key, v in node["entries"]:
                        obj[val(key)] = val(v)
                elif k == "set" and not node.get("frozen", False):
                    obj.update([val(v) for v in node["items"]])
                elif k == "object":
                    obj.__dict__.update(self.fields(node))
                elif k == "error" and "cause" in node:
                    cause = val(node["cause"])
                    if isinstance(cause, BaseException):
                        obj.__cause__ = cause
            except TypeError:
                raise GraphError(f"an unhashable key in a {k} node") from None

    def fields(self, node):
        fields = {}
        for key, v in node["entries"]:
            if type(key) is not str:
                raise GraphError("object node: keys must be strings")
            fields[key] = self.val(v)
        return fields

    def run(self):
        self.build(self.create())
        self.fill()


def _bytes_of(node):
    kind = _str_field(node, "type", _NAME_LIMIT)
    try:
        data = base64.b64decode(_str_field(node, "b64"), validate=True)
    except (binascii.Error, ValueError):
        raise GraphError("bytes node: bad base64") from None
    return bytearray(data) if kind == "bytearray" else data


def _date_of(node):
    ms = node.get("ms")
    if ms is None:
        return None
    if type(ms) not in (int, float):
        raise GraphError("date node: ms must be a number")
    try:
        return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _roots_of(graph):
    if type(graph) is not dict:
        raise GraphError("a graph must be an object")
    roots = graph.get("roots")
    if type(roots) is not list:
        raise GraphError("roots must be a list")
    if len(roots) > MAX_ITEMS:
        raise LimitError(f"more than {MAX_ITEMS} roots")
    return roots


def _decoding(function):
    """Runs function, turning the errors malformed data can cause into GraphError."""
    try:
        return function()
    except GraphError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as e:
        raise GraphError(f"malformed graph: {_clip(_safe_str(e))}") from None


def decode_graph(graph, exception_bases=None):
    """(roots, objects): the decoded roots, and objects[n], the object of node n.
    exception_bases maps class names to extra base classes for decoded exceptions of that name
    (the bridge's stand-ins of the subject's exported classes)."""

    def run():
        roots = _roots_of(graph)
        dec = _Decoder(graph.get("nodes"), None, exception_bases)
        dec.run()
        return [dec.val(r) for r in roots], dec.objects

    return _decoding(run)


def apply_reply(reply, caller_objects, exception_bases=None):
    """Applies a Reply onto the caller's objects and returns its decoded root.

    inputs[i] is written in place onto caller_objects[i] (list and bytearray: slice
    assignment; dict and set: clear and update; an object: its fields, keeping dunder ones;
    tuples, frozensets, bytes, Decimal and exceptions cannot change and are left alone). The
    result reuses the caller's objects wherever the reply says {"$in": i}."""

    def run():
        if type(reply) is not dict:
            raise GraphError("a reply must be an object")
        inputs = reply.get("inputs")
        if type(inputs) is not list or len(inputs) != len(caller_objects):
            raise GraphError("the reply's inputs do not match the request's objects")
        roots = _roots_of(reply)
        if len(roots) != 1:
            raise GraphError("a reply has exactly one root")
        dec = _Decoder(reply.get("nodes"), caller_objects, exception_bases)
        dec.build(dec.create())
        plan = []
        for obj, node in zip(caller_objects, inputs):
            step = _input_step(dec, obj, node)
            if step is not None:
                plan.append(step)
        for step in plan:
            step()
        dec.fill()
        return dec.val(roots[0])

    return _decoding(run)


_UNCHANGING = (tuple, frozenset, bytes, str, int, float, decimal.Decimal, BaseException)


def _input_step(dec, obj, node):
    """A function writing node (the state after the call) onto obj, or None."""
    if type(node) is not dict:
        raise GraphError("an input must be a node")
    k = node.get("k")
    val = dec.val
    if isinstance(obj, list):
        if k != "list":
            raise GraphError(f"a list came back as {_clip(repr(k), 40)}")
        items = [val(v) for v in _list_field(node, "items")]

        def step():
            obj[:] = items

        return step
    if isinstance(obj, dict):
        if k != "dict":
            raise GraphError(f"a dict came back as {_clip(repr(k), 40)}")
        try:
            entries = dict([(val(key), val(v)) for key, v in _entries_field(node)])
        except TypeError:
            raise GraphError("an unhashable dict key") from None

        def step():
            obj.clear()
            obj.update(entries)

        return step
    if isinstance(obj, set):
        if k != "set" or node.get("frozen", False):
            raise GraphError(f"a set came back as {_clip(repr(k), 40)}")
        try:
            items = set([val(v) for v in _list_field(node, "items")])
        except TypeError:
            raise GraphError("an unhashable set item") from None

        def step():
            obj.clear()
            obj.update(items)

        return step
    if isinstance(obj, bytearray):
        if k != "bytes":
            raise GraphError(f"a bytearray came back as {_clip(repr(k), 40)}")
        data = _bytes_of(node)

        def step():
            obj[:] = data

        return step
    if isinstance(obj, _UNCHANGING):
        return None
    try:
        fields = obj.__dict__
    except Exception:
        return None
    if not isinstance(fields, dict):
        return None
    if k != "object":
        raise GraphError(f"an object came back as {_clip(repr(k), 40)}")
    _entries_field(node)
    new = dec.fields(node)

    def step():
        for key in list(fields):
            if key not in new and not _is_dunder(key):
                del fields[key]
        fields.update(new)

    return step
