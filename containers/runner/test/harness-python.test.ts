/**
 * The Python halves of the subject protocol (docs/subject-protocol.md): the value codec through a
 * pytest self-check, then the subject server and the trusted bridge end to end in plain child
 * processes (python3.11), joined by a small broker standing in for the host. Only fixture modules
 * written here run; no sandbox is needed.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, onLines } from "./helpers.ts";

const HARNESS = path.resolve(import.meta.dirname, "../harness/python");
const SITE = path.resolve(import.meta.dirname, "../.venv/lib/python3.11/site-packages");
const PYTHON = "/usr/bin/python3.11";
const AVAILABLE = existsSync(PYTHON) && existsSync(path.join(SITE, "pytest"));

type Frame = Record<string, unknown> & { t?: string; k?: string; id?: number };

interface Result {
  name: string;
  when: string;
  status: string;
  message: string;
  faults: { fault: string; message: string }[];
}

function collect(stream: Readable | null): () => string {
  let text = "";
  stream?.on("data", (c: Buffer) => (text += c.toString()));
  return () => text;
}

/** One subject process: its first frame, then answers by request id. */
interface Subject {
  child: ChildProcess;
  first: Promise<Frame>;
  pending: Map<number, (answer: Frame) => void>;
  send(line: string): void;
  stderr(): string;
}

function startSubject(modulePath: string, pycache: string): Subject {
  const child = spawn(
    PYTHON,
    [
      "-I",
      "-B",
      "-X",
      `pycache_prefix=${pycache}`,
      path.join(HARNESS, "subject.py"),
      "-",
      "-",
      modulePath,
    ],
    { stdio: ["pipe", "pipe", "pipe", "pipe"] },
  );
  const pending = new Map<number, (answer: Frame) => void>();
  let resolveFirst: (f: Frame) => void = () => undefined;
  const first = new Promise<Frame>((resolve) => (resolveFirst = resolve));
  const stderr = collect(child.stderr);
  collect(child.stdout);
  onLines(child.stdio[3] as Readable, (line) => {
    const frame = JSON.parse(line) as Frame;
    if (typeof frame.t !== "string") return; // observation record
    if (frame.t === "ready" || frame.t === "load-error") return resolveFirst(frame);
    const waiter = pending.get(frame.id ?? -1);
    pending.delete(frame.id ?? -1);
    waiter?.(frame);
  });
  child.once("exit", (code, signal) => {
    resolveFirst({ t: "exited", code, signal });
    for (const [id, waiter] of pending) {
      waiter({
        t: "fault",
        id,
        fault: "crashed",
        message: `the subject exited (${code ?? signal})`,
      });
    }
    pending.clear();
  });
  child.stdin?.on("error", () => undefined);
  return { child, first, pending, send: (line) => child.stdin?.write(line + "\n"), stderr };
}

interface Run {
  code: number | null;
  results: Map<string, Result>;
  stdout: string;
  stderr: string;
  /** stderr of every subject started (restarts included), and how each one ended. */
  subjectStderr: string;
  subjectExits: (number | null)[];
  calls: number;
}

const DRIVER = `
"""Test driver: runs pytest in a trusted process and reports results on fd 3."""
import json, os, sys
site, harness, bridge, test_file = sys.argv[1:5]
sys.path[:0] = [site, harness, bridge]
os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
import pytest
import bouts_bridge
from bouts_codec import dump_frame, write_all

def emit(record):
    write_all(3, dump_frame(record))

class Reporter:
    def pytest_runtest_logstart(self, nodeid, location):
        bouts_bridge.reset()

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            crash = getattr(report.longrepr, "reprcrash", None)
            message = (crash.message if crash else str(report.longrepr or ""))[-1000:]
            emit({"k": "result", "name": report.nodeid.split("::", 1)[-1], "when": report.when,
                  "status": "passed" if report.passed else "failed", "message": message,
                  "faults": bouts_bridge.take_faults()})

code = pytest.main(["-p", "no:cacheprovider", "-s", "-q", "--rootdir", os.path.dirname(test_file),
                    test_file], plugins=[Reporter()])
emit({"k": "end", "code": int(code)})
`;

/**
 * Runs pytest on `testFile` in a trusted process. With a subject module, a bridge module `money`
 * is written from its ready frame and the broker forwards calls, restarting the subject after a
 * crash and answering itself the requests `intercept` takes (as the host does for faults).
 */
async function runTrusted(
  dir: string,
  testFile: string,
  subjectModule?: string,
  intercept?: (req: Frame) => Frame | null,
): Promise<Run> {
  const pycache = path.join(dir, "pycache");
  const bridgeDir = path.join(dir, "bridge");
  mkdirSync(bridgeDir, { recursive: true });
  let subject: Subject | undefined;
  const started: Subject[] = [];
  const ensureSubject = async (): Promise<Subject | undefined> => {
    if (!subjectModule) return undefined;
    if (subject && subject.child.exitCode === null && subject.child.signalCode === null)
      return subject;
    subject = startSubject(subjectModule, pycache);
    started.push(subject);
    const first = await subject.first;
    if (first.t !== "ready")
      throw new Error(`subject: ${JSON.stringify(first)} ${subject.stderr()}`);
    return subject;
  };
  const initial = await ensureSubject();
  if (initial) {
    const exports = (await initial.first).exports;
    writeFileSync(
      path.join(bridgeDir, "money.py"),
      [
        "import json as _json",
        "from bouts_bridge import install as _install",
        `_install("money", _json.loads(${JSON.stringify(JSON.stringify(exports))}), globals())`,
        "",
      ].join("\n"),
    );
  }
  writeFileSync(path.join(dir, "driver.py"), DRIVER);
  writeFileSync(path.join(dir, "pytest.ini"), "[pytest]\n");
  const trusted = spawn(
    PYTHON,
    ["-I", "-B", path.join(dir, "driver.py"), SITE, HARNESS, bridgeDir, testFile],
    { stdio: ["pipe", "pipe", "pipe", "pipe"], cwd: dir },
  );
  const stdout = collect(trusted.stdout);
  const stderr = collect(trusted.stderr);
  const results = new Map<string, Result>();
  let calls = 0;
  let queue = Promise.resolve();
  const answer = (frame: Frame) => trusted.stdin.write(JSON.stringify(frame) + "\n");
  trusted.stdin.on("error", () => undefined);
  onLines(trusted.stdio[3] as Readable, (line) => {
    const req = JSON.parse(line) as Frame;
    if (req.k === "result") {
      const r = req as unknown as Result;
      results.set(r.name, r);
      return;
    }
    if (typeof req.t !== "string") return;
    calls++;
    queue = queue.then(async () => {
      const own = intercept?.(req) ?? null;
      if (own) return void answer(own);
      const s = await ensureSubject();
      if (!s) return void answer({ t: "fault", id: req.id, fault: "unavailable", message: "none" });
      const timer = setTimeout(() => s.child.kill("SIGKILL"), 20_000);
      const reply = await new Promise<Frame>((resolve) => {
        s.pending.set(req.id ?? -1, resolve);
        s.send(line);
      });
      clearTimeout(timer);
      answer(reply);
    });
  });
  const timer = setTimeout(() => trusted.kill("SIGKILL"), 60_000);
  const code = await exited(trusted);
  clearTimeout(timer);
  await queue;
  for (const s of started) s.child.stdin?.end();
  const subjectExits = await Promise.all(started.map((s) => exited(s.child)));
  return {
    code,
    results,
    stdout: stdout(),
    stderr: stderr(),
    subjectStderr: started.map((s) => s.stderr()).join(""),
    subjectExits,
    calls,
  };
}

/** Sends raw frames to a subject and returns its first frame and the answers. */
async function talk(modulePath: string, pycache: string, frames: Frame[]) {
  const s = startSubject(modulePath, pycache);
  const first = await s.first;
  const answers: Frame[] = [];
  for (const f of frames) {
    answers.push(
      await new Promise<Frame>((resolve) => {
        s.pending.set(f.id ?? -1, resolve);
        s.send(JSON.stringify(f));
      }),
    );
  }
  s.child.stdin?.end();
  const code = await exited(s.child);
  return { first, answers, code, stderr: s.stderr() };
}

function expectAllPassed(run: Run, expected: number): void {
  const failed = [...run.results.values()].filter((r) => r.status !== "passed");
  expect(failed, `${run.stdout}\n${run.stderr}\n${run.subjectStderr}`).toEqual([]);
  expect(run.results.size).toBe(expected);
}

// ---------------------------------------------------------------------------------------------
// Fixtures (trusted: written by this test, never a submission)

const CODEC_TESTS = String.raw`
import decimal
import math
import time

import pytest

from bouts_codec import (
    MAX_FRAME_BYTES,
    GraphError,
    LimitError,
    apply_reply,
    decode_graph,
    dump_frame,
    encode_graph,
    encode_reply,
    load_frame,
)


def wire(obj):
    """Through a frame and back, as between processes."""
    data = dump_frame({"t": "x", "body": obj})
    assert data.endswith(b"\n") and b"\n" not in data[:-1]
    return load_frame(data[:-1])["body"]


def roundtrip(*values):
    graph, _ = encode_graph(list(values))
    roots, _ = decode_graph(wire(graph))
    return roots


def call(fn, *args):
    """What the bridge and the subject do around one call, in one process."""
    graph, caller = encode_graph(list(args), refuse_callables=True)
    roots, objects = decode_graph(wire(graph))
    try:
        result, raised = fn(*roots), False
    except Exception as e:
        result, raised = e, True
    value = apply_reply(wire(encode_reply(objects, result)), caller)
    if raised:
        raise value
    return value


def same(a, b):
    return type(a) is type(b) and (a == b or (a != a and b != b))


def test_scalars_keep_type_and_value():
    values = [None, True, False, 0, -1, 2**53, -(2**53), 2**53 + 1, -(2**64), 10**100, 1.5,
              1.0, 1e300, "", "héllo", "\ud800 lone", "line\nbreak"]
    for a, b in zip(values, roundtrip(*values)):
        assert same(a, b), (a, b)


def test_special_floats_never_become_json_literals():
    nan, inf, ninf, nz = roundtrip(math.nan, math.inf, -math.inf, -0.0)
    assert math.isnan(nan) and inf == math.inf and ninf == -math.inf
    assert nz == 0.0 and math.copysign(1.0, nz) == -1.0
    graph, _ = encode_graph([math.nan, math.inf, -math.inf, -0.0])
    assert graph["roots"] == [{"$num": "NaN"}, {"$num": "Infinity"}, {"$num": "-Infinity"},
                              {"$num": "-0"}]
    strict = dump_frame(graph).decode()
    assert "NaN," not in strict and ":Infinity" not in strict


def test_big_ints_use_bigint():
    graph, _ = encode_graph([2**53, 2**53 + 1, -(2**70)])
    assert graph["roots"] == [2**53, {"$bigint": str(2**53 + 1)}, {"$bigint": str(-(2**70))}]
    assert roundtrip(2**53 + 1, -(2**70)) == [2**53 + 1, -(2**70)]


def test_frames_refuse_nan_literals_and_overflow():
    for text in ['{"a":NaN}', '{"a":Infinity}', '{"a":-Infinity}', '{"a":1e999}', "[1]", "nope"]:
        with pytest.raises(GraphError):
            load_frame(text.encode())
    with pytest.raises(GraphError):
        load_frame(b'{"a":"\xff"}')


def test_containers_and_non_string_keys():
    value = {
        "list": [1, [2, 3]],
        "tuple": (1, (2, "x")),
        (1, 2): "tuple key",
        7: "int key",
        frozenset({1, 2}): "frozenset key",
        "set": {1, 2, 3},
        "frozenset": frozenset({"a"}),
        "bytes": b"\x00\xffab",
        "bytearray": bytearray(b"xy"),
        "decimal": decimal.Decimal("1.10"),
        "nested": {"a": {"b": {"c": None}}},
    }
    (out,) = roundtrip(value)
    assert out == value
    for k in value:
        assert type(out[k]) is type(value[k])
    assert str(out["decimal"]) == "1.10"


def test_decimal_specials():
    values = [decimal.Decimal(s) for s in ["NaN", "-0", "1E+3", "Infinity", "-1.000"]]
    out = roundtrip(*values)
    assert [str(v) for v in out] == [str(v) for v in values]


def test_deep_nest_is_not_recursive():
    depth = 5000
    nest = []
    for _ in range(depth):
        nest = [nest]
    dnest = {}
    for _ in range(depth):
        dnest = {"k": dnest}
    tnest = ()
    for _ in range(depth):
        tnest = (tnest,)
    a, b, c = roundtrip(nest, dnest, tnest)
    for value, step in ((a, lambda v: v[0]), (b, lambda v: v["k"]), (c, lambda v: v[0])):
        n = 0
        while value:
            value, n = step(value), n + 1
        assert n == depth


def test_large_list_and_split():
    def split(total, weights):
        s = sum(weights)
        shares = [total * w // s for w in weights]
        for i in range(total - sum(shares)):
            shares[i] += 1
        return shares

    start = time.monotonic()
    shares = call(split, 10**12, [1] * 100_000)
    assert len(shares) == 100_000 and sum(shares) == 10**12
    assert all(type(s) is int for s in shares)
    assert time.monotonic() - start < 2


def test_cycles_and_shared_references():
    a = [1]
    loop = []
    loop.append(loop)
    d = {}
    d["self"] = d
    holder = []
    t = (holder,)
    holder.append(t)
    shared, loop2, d2, t2 = roundtrip([a, a], loop, d, t)
    assert shared[0] is shared[1]
    assert loop2[0] is loop2
    assert d2["self"] is d2
    assert t2[0][0] is t2


def test_in_place_mutation_and_aliasing():
    items = [1, 2, 3]

    def add(xs):
        xs.append(4)
        return xs

    out = call(add, items)
    assert items == [1, 2, 3, 4] and out is items

    d = {"x": {"y": 1}, "old": 0}

    def pick(m):
        del m["old"]
        m["new"] = [m["x"]]
        return m["x"]

    out = call(pick, d)
    assert out is d["x"]
    assert d == {"x": {"y": 1}, "new": [{"y": 1}]} and d["new"][0] is d["x"]
    out["y"] = 99
    assert d["x"]["y"] == 99

    def copy(m):
        return {"x": dict(m["x"])}

    d = {"x": {"y": 1}}
    out = call(copy, d)
    out["x"]["y"] = 99
    assert d["x"]["y"] == 1

    s, b = {1}, bytearray(b"ab")

    def grow(s, b):
        s.add(2)
        b.extend(b"cd")
        return [s, b]

    out = call(grow, s, b)
    assert s == {1, 2} and b == bytearray(b"abcd") and out[0] is s and out[1] is b

    t = ([1],)
    assert call(lambda t: t, t) is t


def test_objects_and_functions_travel_as_data():
    class Point:
        def __init__(self, x, y):
            self.x, self.y = x, y

    (p, f) = roundtrip(Point(1, [2]), len)
    assert type(p).__name__ == "Point" and not isinstance(p, Point)
    assert (p.x, p.y) == (1, [2])
    assert f.__name__ == "len"
    with pytest.raises(TypeError):
        f([])

    q = Point(1, 2)

    def move(p):
        p.x = 10
        del p.y
        p.z = 3
        return p

    assert call(move, q) is q
    assert vars(q) == {"x": 10, "z": 3}


def test_arguments_refuse_callables_and_opaque_objects():
    with pytest.raises(TypeError, match=r"argument 2\['on_change'\]"):
        call(lambda a, b: None, 1, {"on_change": print})
    with pytest.raises(TypeError, match=r"argument 1\[1\]"):
        call(lambda a: None, [1, lambda: 0])
    with pytest.raises(TypeError, match="argument 1"):
        call(lambda a: None, object())
    with pytest.raises(TypeError, match="argument 1"):
        call(lambda a: None, pytest)


def test_value_error_stays_a_value_error():
    def bad(x):
        raise ValueError(f"bad amount {x}")

    with pytest.raises(ValueError, match="bad amount 5") as info:
        call(bad, 5)
    assert type(info.value) is ValueError
    assert info.value.args == ("bad amount 5",)


def test_custom_error_class_is_caught_as_its_builtin_base():
    class MoneyError(ValueError):
        pass

    def bad():
        raise MoneyError("no cents")

    with pytest.raises(ValueError, match="no cents") as info:
        call(bad)
    assert type(info.value).__name__ == "MoneyError"
    assert type(info.value) is not MoneyError and type(info.value) is not ValueError


def test_error_details():
    class Funds(Exception):
        def __init__(self, needed):
            super().__init__(needed)
            self.needed = needed

        def __str__(self):
            return f"need {self.needed}"

    (e,) = roundtrip(Funds(5))
    assert str(e) == "need 5" and e.args == (5,) and isinstance(e, Exception)
    (k,) = roundtrip(KeyError("missing"))
    assert type(k) is KeyError and str(k) == "'missing'"
    (o,) = roundtrip(FileNotFoundError(2, "gone"))
    assert type(o) is FileNotFoundError and o.errno == 2
    try:
        try:
            raise KeyError("a")
        except KeyError as inner:
            raise RuntimeError("b") from inner
    except RuntimeError as outer:
        (r,) = roundtrip(outer)
    assert type(r) is RuntimeError and type(r.__cause__) is KeyError


def test_process_ending_exceptions_become_plain_exceptions():
    for e in [SystemExit(0), KeyboardInterrupt(), GeneratorExit()]:
        (d,) = roundtrip(e)
        assert isinstance(d, Exception), e
        assert type(d).__name__ == type(e).__name__
    graph = {"roots": [{"$ref": 0}], "nodes": [
        {"k": "error", "name": "Evil", "chain": ["Evil", "SubjectFault", "os"], "message": "m"}]}
    (d,), _ = decode_graph(graph)
    assert type(d).__name__ == "Evil" and type(d).__bases__ == (Exception,)


def bad_graphs():
    yield {"roots": [{"$ref": 1}], "nodes": [{"k": "list", "items": []}]}
    yield {"roots": [{"$ref": True}], "nodes": [{"k": "list", "items": []}]}
    yield {"roots": [{"$in": 0}], "nodes": []}
    yield {"roots": [{"$ref": 0}], "nodes": [{"k": "tuple", "items": [{"$ref": 0}]}]}
    yield {"roots": [{"$ref": 0}], "nodes": [{"k": "dict", "entries": [[{"$ref": 1}, 1]]},
                                             {"k": "list", "items": []}]}
    yield {"roots": [{"$ref": 0}], "nodes": [{"k": "pickle", "data": "x"}]}
    yield {"roots": [{"$bigint": "1" * 5000}], "nodes": []}
    yield {"roots": [{"$bigint": "12a"}], "nodes": []}
    yield {"roots": [{"a": 1}], "nodes": []}
    yield {"roots": [[1]], "nodes": []}
    yield {"roots": [{"$ref": 0}], "nodes": [{"k": "bytes", "type": "bytes", "b64": "!!"}]}
    yield {"roots": [{"$ref": 0}], "nodes": [{"k": "decimal", "value": "abc"}]}
    yield {"roots": [], "nodes": [{"k": "list", "items": []}] * 1_000_001}
    yield {"roots": [], "nodes": [{"k": "list", "items": [0] * 1_000_001}]}
    # Tuples nested deeper than hashing can take (it recurses in C).
    chain = [{"k": "tuple", "items": [{"$ref": i + 1}]} for i in range(10_001)]
    yield {"roots": [{"$ref": 0}], "nodes": chain + [{"k": "tuple", "items": []}]}


@pytest.mark.parametrize("graph", list(bad_graphs()), ids=lambda g: str(g)[:50])
def test_malformed_graphs_are_refused(graph):
    with pytest.raises(GraphError):
        decode_graph(graph)


def test_replies_must_match_the_callers_objects():
    items = [1]
    _, caller = encode_graph([items])
    with pytest.raises(GraphError):
        apply_reply({"inputs": [], "nodes": [], "roots": [None]}, caller)
    with pytest.raises(GraphError):
        apply_reply({"inputs": [{"k": "dict", "entries": []}], "nodes": [], "roots": [None]},
                    caller)
    assert items == [1]


def test_limits():
    with pytest.raises(LimitError):
        dump_frame({"t": "x", "s": "a" * (MAX_FRAME_BYTES + 1)})
    with pytest.raises(LimitError):
        load_frame(b" " * (MAX_FRAME_BYTES + 1))
    with pytest.raises(TypeError):
        encode_graph([10**5000], refuse_callables=True)
    with pytest.raises(LimitError):
        encode_graph([10**5000])
`;

const MONEY = String.raw`
"""Fixture subject module (written by the test, not a submission)."""
import asyncio
import builtins
import os
import sys
from decimal import Decimal

import helpers
from helpers import double

SOURCE = "money.py"
RATE = Decimal("0.25")
CURRENCIES = ("EUR", "USD")
LIMITS = {"max": 2**60, "ratio": float("nan"), (1, 2): frozenset({3})}


class MoneyError(ValueError):
    pass


class NegativeAmount(MoneyError):
    pass


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class Calculator:
    def add(self, a, b):
        return a + b


calculator = Calculator()


def split(total_cents, weights):
    if not isinstance(total_cents, int) or total_cents < 0:
        raise MoneyError("total must be a non-negative integer")
    weight_sum = sum(weights)
    shares = [total_cents * w // weight_sum for w in weights]
    remainders = [total_cents * w % weight_sum for w in weights]
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))
    for i in order[: total_cents - sum(shares)]:
        shares[i] += 1
    return shares


def parse_amount(text):
    if not isinstance(text, str) or not text.strip().isdigit():
        raise MoneyError(f"not an amount: {text!r}")
    return int(text) * 100


def check_total(total):
    if total < 0:
        raise NegativeAmount(f"negative: {total}")
    return total


def add_item(items, item):
    items.append(item)
    return items


def first(d):
    return d["x"]


def rename(d):
    d["new"] = d.pop("old")


async def double_later(x):
    await asyncio.sleep(0)
    return x * 2


async def fail_later():
    await asyncio.sleep(0)
    raise KeyError("later")


def crash():
    os._exit(3)


def leave():
    sys.exit(0)


def pollute():
    builtins.polluted_by_subject = True
    return "done"


def is_polluted():
    return hasattr(builtins, "polluted_by_subject")


def make_point():
    return Point(1, 2)


def make_callback():
    return lambda: 1


def identity(x):
    return x


def read_stdin():
    return sys.stdin.read()


def shout():
    print("test_bridge.py::test_split PASSED")
    print("10 passed in 0.01s")


def pollute_types():
    import gc

    gc.get_referents(int.__dict__)[0]["polluted"] = 1
    builtins.len = lambda x: 0
    return hasattr(1, "polluted")


def still_polluted():
    return [hasattr(1, "polluted"), len([1, 2])]


def deep(depth):
    nest = []
    for _ in range(depth):
        nest = [nest]
    return nest


def depth_of(nest):
    n = 0
    while nest:
        nest, n = nest[0], n + 1
    return n


def huge():
    return "x" * (17 * 1024 * 1024)


def injected():
    return "never answered by the subject"


def garbled():
    return "answered by the broker with a broken reply"


def _private():
    return "hidden"
`;

const HELPERS = `
TRIPLE = 3


def double(x):
    return x * 2
`;

const BRIDGE_TESTS = String.raw`
import asyncio
import math
from decimal import Decimal

import pytest

import money
from bouts_subject import SubjectFault, pollution
from money import (
    CURRENCIES,
    LIMITS,
    RATE,
    SOURCE,
    MoneyError,
    NegativeAmount,
    Point,
    add_item,
    calculator,
    check_total,
    crash,
    deep,
    depth_of,
    double,
    double_later,
    fail_later,
    first,
    garbled,
    helpers,
    identity,
    injected,
    is_polluted,
    leave,
    make_callback,
    make_point,
    parse_amount,
    pollute,
    pollute_types,
    read_stdin,
    rename,
    shout,
    split,
    still_polluted,
)


def test_exports():
    assert SOURCE == "money.py"
    assert RATE == Decimal("0.25") and CURRENCIES == ("EUR", "USD")
    assert LIMITS["max"] == 2**60 and math.isnan(LIMITS["ratio"])
    assert LIMITS[(1, 2)] == frozenset({3})
    assert not hasattr(money, "_private") and not hasattr(money, "os")
    assert "split" in money.__all__ and "_private" not in money.__all__


def test_split():
    assert split(100, [1, 1, 1]) == [34, 33, 33]


def test_large_split_is_fast():
    import time

    start = time.monotonic()
    shares = split(10**12, [1] * 100_000)
    assert sum(shares) == 10**12 and len(shares) == 100_000
    assert time.monotonic() - start < 2


def test_value_error_stays_a_value_error():
    with pytest.raises(ValueError, match="not an amount"):
        parse_amount("x")
    assert parse_amount("12") == 1200


def test_custom_errors():
    with pytest.raises(MoneyError) as info:
        parse_amount("abc")
    assert isinstance(info.value, ValueError) and type(info.value).__name__ == "MoneyError"
    with pytest.raises(MoneyError):
        check_total(-1)
    with pytest.raises(NegativeAmount, match="negative: -1"):
        check_total(-1)
    try:
        check_total(-2)
    except MoneyError as e:
        assert str(e) == "negative: -2"
    else:
        pytest.fail("no MoneyError")


def test_aliasing_and_in_place_mutation():
    items = [1]
    out = add_item(items, 2)
    assert items == [1, 2] and out is items
    d = {"x": [1]}
    out = first(d)
    assert out is d["x"]
    out.append(2)
    assert d["x"] == [1, 2]
    d = {"old": 1}
    assert rename(d) is None
    assert d == {"new": 1}


def test_async_functions_return_coroutines():
    assert asyncio.run(double_later(21)) == 42
    with pytest.raises(KeyError):
        asyncio.run(fail_later())


def test_pollution_is_reported_and_undone():
    assert pollute() == "done"
    assert pollution() == ["builtins.polluted_by_subject"]
    assert is_polluted() is False
    assert pollution() == []


def test_type_pollution_is_reported_and_undone():
    assert pollute_types() is True
    assert pollution() == ["builtins.len", "int.polluted"]
    assert still_polluted() == [False, 2]


def test_deep_nests_cross_without_recursion():
    nest = []
    for _ in range(5000):
        nest = [nest]
    assert depth_of(nest) == 5000
    assert identity(nest) is nest
    out = deep(5000)
    n = 0
    while out:
        out, n = out[0], n + 1
    assert n == 5000


def test_sibling_import_and_namespaces():
    assert double(2) == 4
    assert helpers.double(3) == 6 and helpers.TRIPLE == 3
    assert calculator.add(1, 2) == 3


def test_callables_are_refused():
    with pytest.raises(TypeError, match=r"argument 2\[1\]"):
        split(10, [1, print])
    with pytest.raises(TypeError, match="keyword"):
        split(total_cents=10, weights=[1])


def test_classes_and_returned_objects():
    with pytest.raises(TypeError, match="class of the subject"):
        Point(1, 2)
    p = make_point()
    assert (p.x, p.y) == (1, 2) and type(p).__name__ == "Point" and not isinstance(p, Point)
    f = make_callback()
    with pytest.raises(TypeError):
        f()


def test_values_round_trip():
    for v in [None, True, 2**70, -0.0, math.inf, "x", b"\x00", Decimal("1.10"), (1, [2]),
              {(1, 2): {3}}, frozenset({1}), bytearray(b"a"), [[]], {}]:
        out = identity(v)
        assert out == v and type(out) is type(v), v


def test_stdin_and_stdout_are_not_channels():
    assert read_stdin() == ""
    assert shout() is None


def test_crash_is_a_fault():
    with pytest.raises(SubjectFault) as info:
        crash()
    assert info.value.fault == "crashed" and not isinstance(info.value, Exception)


def test_subject_restarts_after_a_crash():
    assert split(10, [1]) == [10]


def test_sys_exit_in_a_function_is_a_crash():
    with pytest.raises(SubjectFault) as info:
        leave()
    assert info.value.fault == "crashed"


def test_host_fault():
    with pytest.raises(SubjectFault) as info:
        injected()
    assert info.value.fault == "protocol" and "broker" in info.value.message


def test_unreadable_reply_is_a_protocol_fault():
    with pytest.raises(SubjectFault) as info:
        garbled()
    assert info.value.fault == "protocol"


def test_raises_exception_cannot_accept_a_fault():
    with pytest.raises(Exception):
        crash()


def test_except_exception_cannot_swallow_a_fault():
    try:
        crash()
    except Exception:
        pass


def test_except_base_exception_is_still_recorded():
    try:
        crash()
    except BaseException:
        pass
`;

// ---------------------------------------------------------------------------------------------

describe.skipIf(!AVAILABLE)("python harness: codec", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "bouts-py-codec-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("round-trips the value range, limits and errors (pytest self-check)", async () => {
    writeFileSync(path.join(dir, "test_codec.py"), CODEC_TESTS);
    const run = await runTrusted(dir, path.join(dir, "test_codec.py"));
    expectAllPassed(run, 33);
    expect(run.code).toBe(0);
  }, 60_000);
});

describe.skipIf(!AVAILABLE)("python harness: subject and bridge", () => {
  let dir: string;
  let work: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "bouts-py-bridge-"));
    work = path.join(dir, "work");
    mkdirSync(path.join(work, "money"), { recursive: true });
    writeFileSync(path.join(work, "money.py"), MONEY);
    writeFileSync(path.join(work, "helpers.py"), HELPERS);
    // Decoys: a package and compiled files that must never shadow money.py.
    writeFileSync(path.join(work, "money", "__init__.py"), 'SOURCE = "money/"\n');
    const decoy = path.join(dir, "decoy.py");
    writeFileSync(decoy, 'SOURCE = "money.pyc"\n');
    mkdirSync(path.join(work, "__pycache__"));
    for (const target of ["money.pyc", path.join("__pycache__", "money.cpython-311.pyc")]) {
      execFileSync(PYTHON, [
        "-c",
        "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
        decoy,
        path.join(work, target),
      ]);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("describes the exports in its ready frame, loading money.py by path", async () => {
    const { first, code } = await talk(path.join(work, "money.py"), path.join(dir, "pc"), []);
    expect(first.t).toBe("ready");
    expect(first.v).toBe(1);
    const exports = first.exports as Record<string, { kind: string; members?: object }>;
    expect(exports.split).toEqual({ kind: "function" });
    expect(exports.MoneyError).toEqual({ kind: "class" });
    expect(exports.RATE?.kind).toBe("value");
    expect(exports.SOURCE).toEqual({
      kind: "value",
      value: { roots: ["money.py"], nodes: [] },
    });
    expect(exports.helpers).toEqual({
      kind: "namespace",
      members: {
        TRIPLE: { kind: "value", value: { roots: [3], nodes: [] } },
        double: { kind: "function" },
      },
    });
    expect(exports.calculator).toEqual({
      kind: "namespace",
      members: { add: { kind: "function" } },
    });
    for (const hidden of ["_private", "os", "sys", "asyncio", "builtins"]) {
      expect(exports).not.toHaveProperty(hidden);
    }
    expect(code).toBe(0);
  }, 30_000);

  it("runs pytest against the bridge: values, errors, aliasing, async, pollution, faults", async () => {
    const run = await runTrusted(
      dir,
      (() => {
        const file = path.join(dir, "test_bridge.py");
        writeFileSync(file, BRIDGE_TESTS);
        return file;
      })(),
      path.join(work, "money.py"),
      (req) => {
        if (req.name === "injected") {
          return { t: "fault", id: req.id, fault: "protocol", message: "sent by the broker" };
        }
        if (req.name === "garbled") {
          const reply = { inputs: [], nodes: [{ k: "pickle" }], roots: [{ $ref: 0 }] };
          return { t: "return", id: req.id, async: false, effects: { pollution: [] }, reply };
        }
        return null;
      },
    );
    const context = `${run.stdout}\n${run.stderr}\n${run.subjectStderr}`;
    const expectedFailures = [
      "test_raises_exception_cannot_accept_a_fault",
      "test_except_exception_cannot_swallow_a_fault",
    ];
    for (const name of expectedFailures) {
      expect(run.results.get(name)?.status, context).toBe("failed");
      expect(run.results.get(name)?.message).toContain("subject crashed");
      expect(run.results.get(name)?.faults).toMatchObject([{ fault: "crashed" }]);
    }
    const others = [...run.results.values()].filter((r) => !expectedFailures.includes(r.name));
    expect(
      others.filter((r) => r.status !== "passed"),
      context,
    ).toEqual([]);
    expect(run.results.size).toBe(23);
    // A test that swallowed the fault with `except BaseException` passes in pytest, but the
    // bridge remembered the fault for the harness.
    expect(run.results.get("test_except_base_exception_is_still_recorded")?.faults).toMatchObject([
      { fault: "crashed" },
    ]);
    expect(run.results.get("test_unreadable_reply_is_a_protocol_fault")?.faults).toMatchObject([
      { fault: "protocol" },
    ]);
    expect(run.results.get("test_split")?.faults).toEqual([]);
    expect(run.subjectStderr).toContain("SystemExit during a call");
    // In file order: crash() exits 3, leave() ends the subject with 70, then three crash()es.
    expect(run.subjectExits).toEqual([3, 70, 3, 3, 3]);
    // The subject's prints went to its own stdout, never into results.
    expect(run.stdout).not.toContain("test_split PASSED");
  }, 120_000);

  it("reports a module that fails to import as load-error, then exits", async () => {
    const cases: [string, string][] = [
      ["x = 1 / 0\n", "ZeroDivisionError"],
      ["import sys\nsys.exit(0)\n", "SystemExit"],
      ["def broken(:\n", "SyntaxError"],
    ];
    for (const [source, name] of cases) {
      const file = path.join(dir, `broken_${name}.py`);
      writeFileSync(file, source);
      const { first, code } = await talk(file, path.join(dir, "pc"), []);
      expect(first.t).toBe("load-error");
      const error = first.error as { roots: unknown[]; nodes: { k: string; name: string }[] };
      expect(error.roots).toEqual([{ $ref: 0 }]);
      expect(error.nodes[0]).toMatchObject({ k: "error", name });
      expect(code).toBe(0);
    }
  }, 30_000);

  it("answers HTTP requests and unknown calls with a throw; ends on an answer over 16 MiB", async () => {
    const { answers, code, stderr } = await talk(
      path.join(work, "money.py"),
      path.join(dir, "pc"),
      [
        { t: "http-open", id: 1, factory: "createApp", socket: "/chan/s" },
        { t: "http-close", id: 2, socket: "/chan/s" },
        { t: "call", id: 3, name: "_private", args: { roots: [], nodes: [] } },
        {
          t: "call",
          id: 4,
          name: "split",
          args: { roots: [10, { $ref: 0 }], nodes: [{ k: "list", items: [1, 1] }] },
        },
        { t: "call", id: 5, name: "huge", args: { roots: [], nodes: [] } },
      ],
    );
    for (const a of answers.slice(0, 2)) {
      expect(a).toMatchObject({ t: "throw", async: false, effects: { pollution: [] } });
      const reply = a.reply as { nodes: { name: string; message: string }[] };
      expect(reply.nodes[0]).toMatchObject({
        name: "TypeError",
        message: "HTTP subjects are only supported for node22",
      });
    }
    expect(answers[2]).toMatchObject({ t: "throw", id: 3 });
    expect(answers[3]).toMatchObject({
      t: "return",
      id: 4,
      async: false,
      reply: {
        inputs: [{ k: "list", items: [1, 1] }],
        nodes: [{ k: "list", items: [5, 5] }],
        roots: [{ $ref: 0 }],
      },
    });
    expect(answers[4]).toMatchObject({ t: "fault", fault: "crashed" });
    expect(code).toBe(70);
    expect(stderr).toContain("over the 16777216-byte limit");
  }, 30_000);
});
