#!/usr/bin/env python3
"""Run a command in the sandbox under a pseudo-terminal and stream its
output as it comes (what an agent framework does for an interactive tool).

    python3 pty_stream.py [SETTINGS.json] [COMMAND]
"""
import os
import pty
import sys

from srt import Sandbox


def main() -> int:
    settings = sys.argv[1] if len(sys.argv) > 1 else {
        "network": {"allowedDomains": [], "deniedDomains": []},
        "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": []},
    }
    command = sys.argv[2] if len(sys.argv) > 2 else \
        'for i in 1 2 3; do echo "line $i on $(tty)"; sleep 0.1; done; cat ~/.ssh/id_rsa'
    with Sandbox(settings) as sb:
        master, slave = pty.openpty()
        # the pty is the command's stdio (the sandbox gives it a session of
        # its own, so it is never its controlling terminal)
        p = sb.popen(command, command_id="pty-demo", stdin=slave, stdout=slave, stderr=slave)
        os.close(slave)
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the terminal's last writer is gone
                break
            if not chunk:
                break
            sys.stdout.write(chunk.decode(errors="replace"))
            sys.stdout.flush()
        os.close(master)
        status = p.wait()
        print(sb.annotate_stderr("pty-demo", f"(exit {status})"))
        return 0 if status >= 0 else 1


if __name__ == "__main__":
    sys.exit(main())
