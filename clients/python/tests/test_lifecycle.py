"""How the client drives cgward exec, with a stand-in for it: no kernel needed.

The stand-in acts as cgward exec does where the client relies on it: it
appends events to --events FILE, runs the command, and on SIGTERM kills
the command and exits 143.
"""

import asyncio
import os
import stat
import time

import pytest

from cgward import Sandbox

FAKE_CGWARD = """#!/bin/sh
while [ "$1" != --events ]; do shift; done
events=$2
shift 3
echo '{"verdict":"deny","op":"create","path":"/x","reason":"outside_roots"}' >>"$events"
echo '{"verdict":"audit","op":"create","path":"/y"}' >>"$events"
# An asynchronous command of sh reads /dev/null unless given its stdin.
exec 3<&0
"$@" <&3 3<&- &
command=$!
trap 'kill $command; echo terminated >"$PWD/cgward-got-sigterm"; exit 143' TERM
wait $command
"""


@pytest.fixture
def box(tmp_path):
    cgward = tmp_path / "cgward"
    cgward.write_text(FAKE_CGWARD)
    cgward.chmod(stat.S_IRWXU)
    work = tmp_path / "work"
    work.mkdir()
    return Sandbox(work, cgward_path=cgward)


def wait_for_file(path, bound_s=30.0):
    deadline = time.monotonic() + bound_s
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"{path} did not appear in {bound_s} s"
        time.sleep(0.05)


def test_output_status_and_denies(box):
    result = box.run(["sh", "-c", "cat; echo err >&2; exit 3"], input="in")
    assert (result.returncode, result.stdout, result.stderr) == (3, b"in", b"err\n")
    assert result.denies == [
        {"verdict": "deny", "op": "create", "path": "/x", "reason": "outside_roots"}
    ]
    assert not result.timed_out


def test_env_reaches_the_command(box):
    result = box.run(["sh", "-c", 'echo "$ONLY"'], env={"ONLY": "this", "PATH": os.defpath})
    assert result.stdout == b"this\n"


def test_timeout_sends_sigterm_to_cgward_and_waits_for_it(box):
    started = time.monotonic()
    result = box.run(["sleep", "600"], timeout=0.5)
    assert result.timed_out
    assert result.returncode == 143
    assert open(os.path.join(box.cwd, "cgward-got-sigterm")).read() == "terminated\n"
    assert time.monotonic() - started < 60


def test_cancelling_arun_ends_the_run_first(box):
    async def cancel_once_started():
        task = asyncio.ensure_future(box.arun(["sh", "-c", "echo $$ >started; exec sleep 600"]))
        await asyncio.get_running_loop().run_in_executor(
            None, wait_for_file, os.path.join(box.cwd, "started"))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_once_started())
    # cgward exec was signalled and had exited by the time the cancellation went on.
    assert open(os.path.join(box.cwd, "cgward-got-sigterm")).read() == "terminated\n"


def test_arun_timeout(box):
    result = asyncio.run(box.arun(["sleep", "600"], timeout=0.5))
    assert (result.timed_out, result.returncode) == (True, 143)
    assert result.denies[0]["path"] == "/x"
