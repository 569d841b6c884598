"""Runs pytest node ids in a trusted test process and reports them on fd 3, a pipe the host owns.

Started as `python3.11 -I -B run_pytest.py <tools> <deps|-> <nodeid>...` inside the sandbox. No
submission code is ever loaded here: the submission's module in /work is the runner's bridge
(bouts_bridge), whose calls go to the subject over fd 3 and fd 0. Each test is announced with a
"start" record and closed with "finish", so the host holds it to its own limit.
A fault the bridge saw during a test (even one the test swallowed) is reported as a "fault"
record, so the host fails that test. The configuration is the challenge's pristine ini (-c),
conftest files are only read from the pristine tests folder (--confcutdir), plugin autoloading
is off, output capture is off (the bridge reads its answers on fd 0) and pytest's terminal
reporter writes to /dev/null.
"""

import os
import sys


def main():
    tools, deps, nodeids = sys.argv[1], sys.argv[2], sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, tools)
    sys.path.insert(1, here)
    if deps != "-":
        sys.path.insert(1, deps)
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    import pytest  # noqa: E402  (after the path is set)

    import bouts_bridge  # noqa: E402
    from bouts_observe import emit  # noqa: E402

    sys.path.append("/work")

    class Reporter:
        def pytest_runtest_logstart(self, nodeid, location):
            bouts_bridge.pollution()
            emit({"k": "start", "name": nodeid})

        def pytest_runtest_logfinish(self, nodeid, location):
            for f in bouts_bridge.take_faults():
                emit({"k": "fault", "name": nodeid, "fault": f["fault"], "message": f["message"]})
            emit({"k": "finish", "name": nodeid})

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

    code = pytest.main(
        [
            "-c", os.path.join(here, "pytest.ini"),
            "--rootdir=/work",
            "--confcutdir=/work/tests",
            "-p", "no:cacheprovider",
            "--capture=no",
            "-W", "default",
            *nodeids,
        ],
        plugins=[Reporter()],
    )
    emit({"k": "end", "code": int(code)})
    sys.exit(int(code))


main()
