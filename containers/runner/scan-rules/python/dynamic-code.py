import builtins
import ctypes
import importlib
import importlib.util
import json
import marshal
import re
import runpy
import subprocess
import sys
import types
from ctypes import CDLL


def hidden(name: str, code: str, blob: bytes):
    # ruleid: bouts.py.dynamic-code.exec-eval
    exec(open("payload.txt").read())
    # ruleid: bouts.py.dynamic-code.exec-eval
    value = eval(code, {})
    # ok: bouts.py.dynamic-code.exec-eval
    eval("1 + 1")
    # ruleid: bouts.py.dynamic-code.compile
    obj = compile(code, "<string>", "exec")
    # ok: bouts.py.dynamic-code.compile
    pattern = re.compile(name)
    # ok: bouts.py.dynamic-code.compile
    fixed = compile("x = 1", "<string>", "exec")
    # ruleid: bouts.py.dynamic-code.builtin-reference
    run = exec
    # ruleid: bouts.py.dynamic-code.builtin-reference
    fn = getattr(builtins, "ex" + "ec")
    # ruleid: bouts.py.dynamic-code.non-literal-import
    mod = importlib.import_module(name)
    # ruleid: bouts.py.dynamic-code.non-literal-import
    other = __import__(name)
    # ok: bouts.py.dynamic-code.non-literal-import
    js = importlib.import_module("json")
    # ruleid: bouts.py.dynamic-code.file-loader
    ns = runpy.run_path("payload.txt")
    # ruleid: bouts.py.dynamic-code.file-loader
    spec = importlib.util.spec_from_file_location("p", "payload.txt")
    # ruleid: bouts.py.dynamic-code.bytecode
    co = marshal.loads(blob)
    # ruleid: bouts.py.dynamic-code.bytecode
    f = types.FunctionType(co, {})
    # ruleid: bouts.py.dynamic-code.bytecode
    c2 = types.CodeType(*[0] * 16)
    # ruleid: bouts.py.dynamic-code.native-library
    lib = ctypes.CDLL("./libhidden.so")
    # ruleid: bouts.py.dynamic-code.native-library
    libc = CDLL(None)
    # ruleid: bouts.py.dynamic-code.child-python-eval
    subprocess.run([sys.executable, "-c", code])
    # ok: bouts.py.dynamic-code.child-python-eval
    subprocess.run([sys.executable, "-c", "print(1)"])
    # ok: bouts.py.dynamic-code.child-python-eval
    subprocess.run(["ls", "-l", name])
    return value, obj, pattern, fixed, run, fn, mod, other, js, ns, spec, f, c2, lib, libc


def not_code(text: str, items: list):
    # ok: bouts.py.dynamic-code.exec-eval
    data = json.loads(text)
    # ok: bouts.py.dynamic-code.bytecode
    cleaned = text.replace("a", "b")
    # ok: bouts.py.dynamic-code.builtin-reference
    evaluation = {"score": 1}
    # ok: bouts.py.dynamic-code.exec-eval
    items.sort(key=len)
    return data, cleaned, evaluation


def rebuilt(fn, payload: bytes):
    # ruleid: bouts.py.dynamic-code.bytecode
    fn.__code__ = fn.__code__.replace(co_code=payload)


def built(user: str):
    # ruleid: bouts.py.dynamic-code.exec-eval
    exec(f"result = {user}")
    # ok: bouts.py.dynamic-code.exec-eval
    exec("""
result = 1
""")
    # ruleid: bouts.py.dynamic-code.non-literal-import
    importlib.import_module(f"plugins.{user}")
    # ok: bouts.py.dynamic-code.exec-eval
    exec('''
result = 2
''')
    # ruleid: bouts.py.dynamic-code.exec-eval
    exec("""""" + user + """""")
