"""Per-uid sandbox launcher: joins the sandbox cgroups once, then forks every sandbox of its uid.

Started by the runner (root) as `python3 -I -S -B launcher.py <cgroup.procs file>...`. It writes
its own pid into each cgroup.procs file, so every process it forks is born inside the groups and
no sandbox pays for a cgroup migration (on cgroup v1 each migration waits for an RCU grace
period, ~13 ms). Sandboxes get OOM score adjustment +1000 (and the launcher -1000 where the host
allows it), so the memory limit kills sandboxed code, not the launcher. It dies with the runner
(PR_SET_PDEATHSIG, and EOF on its stdin).

Protocol: JSON lines, requests on stdin, answers on stdout.
  {"op": "start", "id", "argv", "uid", "rlimits": [[resource, value], ...], "stdin": bool}
      → {"id", "pid", "fds": [out, err, channel, info(, stdin write end)]}, then later
      → {"id", "exit": code|null, "signal": n|null}
  {"op": "opened", "id"}: the runner has opened the read ends as /proc/<launcher>/fd/<n>; the
      launcher closes its own copies (until then they keep the pipes' early output buffered).
The child runs in a new session with stdin at EOF (or, with "stdin", on a pipe whose write end
the runner opens like the others, for the subject protocol), stdout, stderr, fd 3 (result channel) and fd 4
(bwrap's --info-fd) on fresh pipes, sets the rlimits, drops to the run's uid and gid with no
supplementary groups and no new privileges, and execs argv[0] (bwrap) with PATH only.
Invariants: nothing here runs submission code — only the bwrap it execs does, as the run's uid;
every fd but 0–4 is close-on-exec; a failed exec exits 127 with the reason on stderr.
"""

import ctypes
import fcntl
import json
import os
import resource
import selectors
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
LIBC = ctypes.CDLL(None, use_errno=True)


def reply(record):
    os.write(1, (json.dumps(record) + "\n").encode())


def child(spec, fds):
    """In the forked child: lay out fds 0–4, confine, exec. Never returns."""
    try:
        os.setsid()
        # Python ignores these; an ignored signal would survive exec into the sandbox.
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        # Copy the pipe ends above 4 first, so laying out 0–4 cannot clobber one of them.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in fds]
        for target, fd in enumerate(high):
            os.dup2(fd, target, inheritable=True)
        # Sandboxed code is what the kernel kills first on memory pressure, never the launcher.
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        os.write(fd, b"1000")
        os.close(fd)
        for res, value in spec["rlimits"]:
            resource.setrlimit(getattr(resource, res), (value, value))
        uid = int(spec["uid"])
        if uid < 1000:
            raise OSError(f"refusing to run a sandbox as uid {uid}")
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid or os.getgid() != uid:
            raise OSError("could not drop privileges")
        if LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        argv = spec["argv"]
        os.execve(argv[0], argv, {"PATH": "/usr/bin:/bin"})
    except BaseException as e:  # noqa: BLE001 — report anything, then exit
        try:
            os.write(2, f"sandbox launch failed: {e}\n".encode())
        except OSError:
            pass
    finally:
        os._exit(127)


def main():
    if LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() == 1:
        sys.exit(1)
    for procs in sys.argv[1:]:
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
    try:
        # Needs CAP_SYS_RESOURCE, which containers often lack; the children's +1000 suffices.
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("-1000")
    except PermissionError:
        pass
    held = {}  # id -> read ends the runner has not opened yet
    sel = selectors.DefaultSelector()
    sel.register(0, selectors.EVENT_READ, None)
    buf = b""
    reply({"ready": os.getpid()})
    while True:
        for key, _ in sel.select():
            if key.data is not None:
                rid, pid = key.data
                sel.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                if os.WIFSIGNALED(status):
                    reply({"id": rid, "exit": None, "signal": os.WTERMSIG(status)})
                else:
                    reply({"id": rid, "exit": os.waitstatus_to_exitcode(status), "signal": None})
                continue
            chunk = os.read(0, 65536)
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = json.loads(line)
                rid = req["id"]
                if req["op"] == "start":
                    stdin_r, stdin_w = os.pipe()
                    ours, theirs = [], [stdin_r]
                    for _ in range(4):
                        r, w = os.pipe()
                        ours.append(r)
                        theirs.append(w)
                    if req.get("stdin"):
                        ours.append(stdin_w)
                    else:
                        os.close(stdin_w)
                    pid = os.fork()
                    if pid == 0:
                        child(req, theirs)
                    for fd in theirs:
                        os.close(fd)
                    held[rid] = ours
                    pidfd = os.pidfd_open(pid)
                    sel.register(pidfd, selectors.EVENT_READ, (rid, pid))
                    reply({"id": rid, "pid": pid, "fds": ours})
                elif req["op"] == "opened":
                    for fd in held.pop(rid, []):
                        os.close(fd)

main()
