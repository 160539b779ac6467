"""How the client drives cgward exec --serve, with a stand-in for it: no kernel needed.

The stand-in speaks the protocol of user/exec/exec_serve.h where the client
relies on it: its hello names the test's agent socket (which only takes
connections), and
for each request it runs argv with the descriptors sent, writes one event
and then {"exit": STATUS}; the run's socket hung up, it kills the command
and says 143. argv[0] "caller-starts" and "no-status" get those answers.
"""

import os
import signal
import socket
import sys
import time

import pytest

from cgward._serve import ServedRun, Server

FAKE_SERVER = r"""
import json, os, select, socket, subprocess, sys
control = socket.socket(fileno=0)
control.send(json.dumps({"agent_socket": sys.argv[1]}).encode())
while True:
    message, fds, _, _ = socket.recv_fds(control, 65536, 16)
    if not message:
        break
    if os.fork() == 0:
        request = json.loads(message)
        _, _, cwd, stdin, stdout, stderr, reply_fd = fds
        reply = socket.socket(fileno=reply_fd)
        if request["argv"][0] == "caller-starts":
            reply.sendall(b'{"caller_starts":true}\n')
            os._exit(0)
        if request["argv"][0] == "no-status":
            os._exit(0)
        os.fchdir(cwd)
        os.umask(request["umask"])
        env = dict(entry.split("=", 1) for entry in request["env"])
        command = subprocess.Popen(request["argv"], stdin=stdin, stdout=stdout, stderr=stderr, env=env)
        for fd in (stdin, stdout, stderr):
            os.close(fd)
        reply.sendall(b'{"verdict":"deny","op":"create","path":"/x"}\n')
        pidfd = os.pidfd_open(command.pid)
        ready, _, _ = select.select([pidfd, reply], [], [])
        if reply in ready:
            command.kill()
        status = command.wait()
        status = 143 if reply in ready else status
        reply.sendall(json.dumps({"exit": status}).encode() + b"\n")
        os._exit(0)
    for fd in fds:
        os.close(fd)
"""


@pytest.fixture
def server(tmp_path):
    script = tmp_path / "serve.py"
    script.write_text(FAKE_SERVER)
    work = tmp_path / "work"
    work.mkdir()
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as agent:
        agent.bind(str(tmp_path / "agent.sock"))
        agent.listen(64)
        served = Server([sys.executable, str(script), str(tmp_path / "agent.sock")], str(work))
        yield served
        served.close()


def run(server, argv, input=None, timeout=None, env=None):
    served = ServedRun(server, server._cwd, argv, env, input)
    assert served.start()
    return served.collect(timeout, grace=30)


def test_output_input_status_and_events(server):
    returncode, stdout, stderr, timed_out, events = run(
        server, ["sh", "-c", "cat; echo err >&2; pwd; exit 3"], input=b"in\n"
    )
    assert (returncode, stderr, timed_out) == (3, b"err\n", False)
    assert stdout == b"in\n" + server._cwd.encode() + b"\n"
    assert events == [{"verdict": "deny", "op": "create", "path": "/x"}]


def test_the_environment_and_umask_are_this_processs_at_the_call(server):
    mask = os.umask(0o027)
    try:
        outcome = run(server, ["sh", "-c", 'umask; echo "$ONLY"'], env={"ONLY": "this"})
    finally:
        os.umask(mask)
    assert outcome[1] == b"0027\nthis\n"


def test_a_timeout_hangs_up_and_the_run_ends(server):
    started = time.monotonic()
    returncode, _, _, timed_out, _ = run(server, ["sleep", "600"], timeout=0.5)
    assert (returncode, timed_out) == (143, True)
    assert time.monotonic() - started < 60


def test_caller_starts_is_no_outcome_and_no_status_a_kill(server):
    assert run(server, ["caller-starts"]) is None
    assert run(server, ["no-status"])[0] == -signal.SIGKILL


def test_a_killed_server_is_started_again(server):
    assert run(server, ["true"])[0] == 0
    os.kill(server._proc.pid, signal.SIGKILL)
    server._proc.wait()
    assert run(server, ["sh", "-c", "exit 4"])[0] == 4


def test_a_server_that_will_not_start_takes_no_run(tmp_path):
    refused = Server([sys.executable, "-c", "raise SystemExit(2)"], str(tmp_path))
    assert not ServedRun(refused, str(tmp_path), ["true"], None, None).start()
    assert not refused.usable


def test_what_a_request_cannot_carry_is_left_to_cgward_exec(server):
    with pytest.raises(UnicodeEncodeError):
        ServedRun(server, server._cwd, ["true"], {"X": "\udcff"}, None)
    with pytest.raises(ValueError, match="a request of"):
        ServedRun(server, server._cwd, ["true"], {"X": "x" * 200_000}, None)
