#!/usr/bin/python3
"""An agent framework's loop of tool calls, as make bench measures it.

Runs a small tool call (write a file, read it, list the directory) in
WORKSPACE through each way of running it: directly, in bubblewrap with a
user namespace of its own (with and without tmpfs on /tmp and /var/tmp),
and through the cgward Python client (with and without private tmp).
ROUNDS rounds of one call of each case, then BATCHES rounds of 16 calls of
each case started at once: interleaved, so that drift of the machine
spreads over all of them. Prints one line per measurement:

    calls CASE seq|par us PER_CALL_US

Usage: tool_calls.py CGWARD WORKSPACE ROUNDS BATCHES
"""
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../clients/python"))
from cgward import Sandbox  # noqa: E402

PARALLEL = 16
CALL = ["sh", "-c", "echo hi > f.txt && cat f.txt && ls"]


def plain(argv, cwd):
    def call():
        subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, check=True)

    return call


def sandboxed(sandbox):
    def call():
        result = sandbox.run(CALL)
        if result.returncode != 0:
            raise RuntimeError(f"the call failed: {result.stderr!r}")

    return call


def cases(cgward, ws):
    def bwrap(tmpfs):
        # The tmpfs first: the workspace may lie beneath /tmp, bound back over it.
        return (
            ["bwrap", "--unshare-user", "--ro-bind", "/", "/"]
            + (["--tmpfs", "/tmp", "--tmpfs", "/var/tmp"] if tmpfs else [])
            + ["--bind", ws, ws, "--chdir", ws]
            + CALL
        )

    return {
        "direct": plain(CALL, ws),
        "bwrap": plain(bwrap(False), ws),
        "bwrap-tmpfs": plain(bwrap(True), ws),
        "cgward": sandboxed(Sandbox(ws, cgward_path=cgward, private_tmp=False)),
        "cgward-tmp": sandboxed(Sandbox(ws, cgward_path=cgward)),
    }


def call_us(call):
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1e6


def batch_us(call):
    """Per call, PARALLEL calls started at once."""
    start = time.perf_counter()
    with ThreadPoolExecutor(PARALLEL) as pool:
        for future in [pool.submit(call) for _ in range(PARALLEL)]:
            future.result()
    return (time.perf_counter() - start) / PARALLEL * 1e6


def main():
    cgward, ws, rounds, batches = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    all_cases = cases(cgward, ws)
    for call in all_cases.values():
        call()  # warm: the page cache, the agent's parked ring
    # Interleaved, one call of each case per round: drift spreads over all of them.
    for _ in range(rounds):
        for name, call in all_cases.items():
            print(f"calls {name} seq us {call_us(call):.0f}", flush=True)
    for _ in range(batches):
        for name, call in all_cases.items():
            print(f"calls {name} par us {batch_us(call):.0f}", flush=True)


if __name__ == "__main__":
    main()
