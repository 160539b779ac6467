"""forks.py DIR: forks up to 40 children, each waiting (at most 120 s) until
DIR/go exists, and prints how many it could start: under a pids limit, a fork
past it fails (EAGAIN) and the count stops there."""
import os
import sys
import time

started = 0
for _ in range(40):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        for _ in range(1200):
            if os.path.exists(os.path.join(sys.argv[1], "go")):
                break
            time.sleep(0.1)
        os._exit(0)
    started += 1
print(started, flush=True)
