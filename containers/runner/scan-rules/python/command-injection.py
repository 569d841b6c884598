import os
import subprocess


def ping(host: str) -> None:
    # ruleid: bouts.py.command-injection.shell-with-dynamic-command
    os.system("ping -c 1 " + host)
    # ruleid: bouts.py.command-injection.shell-with-dynamic-command
    subprocess.run(f"nslookup {host}", shell=True, check=False)
    cmd = "dig " + host
    # ruleid: bouts.py.command-injection.shell-with-dynamic-command
    subprocess.check_output(cmd, shell=True)
    # ok: bouts.py.command-injection.shell-with-dynamic-command
    subprocess.run(["ping", "-c", "1", host], check=False)
    # ok: bouts.py.command-injection.shell-with-dynamic-command
    os.system("ls -la")
