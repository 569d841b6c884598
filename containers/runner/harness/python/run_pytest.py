"""Runs one pytest node id and reports it on fd 3, a pipe the host owns.

Started as `python3.11 -I -B run_pytest.py <tools> <deps|-> <nodeid>` inside the sandbox.
Isolated mode (-I) keeps the workspace off sys.path until the harness appends it *last*, so a
submission file cannot shadow the standard library or pytest. The configuration is the
challenge's pristine ini (-c), conftest files are only read from the pristine tests folder
(--confcutdir), and plugin autoloading is off. Output capture is off and pytest's terminal
reporter writes to /dev/null, so everything on stdout was printed by the code under test. An audit hook, which cannot be removed once
added, records blocked network attempts and environment or /proc probing.
"""

import json
import os
import re
import sys

CHANNEL = 3
_busy = False


def emit(record):
    try:
        os.write(CHANNEL, (json.dumps(record) + "\n").encode())
    except OSError:
        pass


LOOPBACK = re.compile(r"^(127\.|::1$|localhost$)")
PROBE = re.compile(
    r"^/proc/(self|\d+|thread-self)/(environ|mem|root|maps|cmdline)|^/proc/1/"
    r"|^/(root|home|etc/shadow|var/run|run|sys/fs/cgroup)(/|$)"
)


def called_from_submission():
    """True when the nearest workspace frame on the stack is submission code, not a hidden test."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("/work/"):
            return not name.startswith("/work/tests/")
        frame = frame.f_back
    return False


def audit(event, args):
    global _busy
    if _busy:
        return
    _busy = True
    try:
        if event == "socket.connect":
            addr = args[1]
            if isinstance(addr, tuple) and not LOOPBACK.match(str(addr[0])):
                emit({"k": "network", "target": f"{addr[0]}:{addr[1]}"})
        elif event == "socket.getaddrinfo":
            if not LOOPBACK.match(str(args[0])):
                emit({"k": "dns", "host": str(args[0])[:200]})
        elif event in ("open", "os.listdir", "os.scandir"):
            p = args[0]
            if isinstance(p, str) and PROBE.match(p):
                emit({"k": "probe", "path": p[:200]})
            elif isinstance(p, str) and p.startswith("/work/tests") and called_from_submission():
                emit({"k": "test-read", "path": p[:200]})
    finally:
        _busy = False


def main():
    tools, deps, nodeid = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, tools)
    if deps != "-":
        sys.path.insert(1, deps)
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    import pytest  # noqa: E402  (after the path is set)

    sys.addaudithook(audit)
    sys.path.append("/work")

    class Reporter:
        @pytest.hookimpl(trylast=True)
        def pytest_configure(self, config):
            # pytest's own progress lines go nowhere, so stdout holds only what tested code printed.
            tr = config.pluginmanager.get_plugin("terminalreporter")
            if tr is not None:
                from _pytest.config import create_terminal_writer

                tr._tw = create_terminal_writer(config, open(os.devnull, "w"))

        def pytest_runtest_logreport(self, report):
            if report.when == "call" or report.outcome != "passed":
                status = "passed" if report.passed else "failed"
                message = ""
                if report.skipped:
                    message = "test was skipped"
                elif report.failed:
                    crash = getattr(report.longrepr, "reprcrash", None)
                    message = (crash.message if crash else str(report.longrepr))[-1000:]
                emit(
                    {
                        "k": "result",
                        "name": report.nodeid,
                        "when": report.when,
                        "status": status,
                        "durationMs": report.duration * 1000,
                        "message": message,
                    }
                )

        def pytest_warning_recorded(self, warning_message, when, nodeid, location):
            emit(
                {
                    "k": "warning",
                    "name": warning_message.category.__name__,
                    "message": str(warning_message.message)[:300],
                }
            )

    here = os.path.dirname(os.path.abspath(__file__))
    code = pytest.main(
        [
            "-c", os.path.join(here, "pytest.ini"),
            "--rootdir=/work",
            "--confcutdir=/work/tests",
            "-p", "no:cacheprovider",
            "--capture=no",
            "-W", "default",
            nodeid,
        ],
        plugins=[Reporter()],
    )
    emit({"k": "end", "code": int(code)})
    sys.exit(int(code))


main()
