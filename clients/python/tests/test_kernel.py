"""Real runs of cgward exec on a kernel with BPF LSM, as root or as an
ordinary user through a running agent (make test-python runs them both ways in
tests/vm/run). CGWARD names the binary (default: cgward on PATH).
"""

import asyncio
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

import pytest

from cgward import Sandbox

pytestmark = pytest.mark.kernel


def cgroup2_root():
    with open("/proc/self/mountinfo") as mounts:
        for line in mounts:
            fields = line.split()
            if fields[fields.index("-") + 1] == "cgroup2":
                return fields[4]
    pytest.fail("no cgroup2 mounted")


def run_cgroups():
    """cgward exec's cgroups, wherever they are: within their callers'."""
    root = cgroup2_root()
    return sorted(
        os.path.relpath(path, root)
        for path, _, _ in os.walk(root)
        if os.path.basename(path).startswith("cgward-")
    )


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for_file(path, bound_s=60.0):
    deadline = time.monotonic() + bound_s
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"{path} did not appear in {bound_s} s"
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def no_cgroup_left():
    assert run_cgroups() == []
    yield
    assert run_cgroups() == []


@pytest.fixture
def dirs(tmp_path):
    """work: the sandbox's cwd; outside: beside it, not writable."""
    (tmp_path / "work").mkdir()
    (tmp_path / "outside").mkdir()
    return tmp_path / "work", tmp_path / "outside"


def sandbox(cwd, **kwargs):
    return Sandbox(cwd, cgward_path=os.environ.get("CGWARD", "cgward"), **kwargs)


def test_run_writes_in_cwd_and_is_denied_outside_with_the_deny_reported(dirs):
    work, outside = dirs
    box = sandbox(work, private_tmp=False)
    result = box.run(["sh", "-c", f"echo in >in; echo out >{outside}/f; echo done"])
    assert (work / "in").read_text() == "in\n"
    assert not (outside / "f").exists()
    assert b"Operation not permitted" in result.stderr
    assert result.stdout == b"done\n"
    assert result.returncode == 0
    assert [(d["op"], d["path"], d["reason"]) for d in result.denies] == [
        ("create", f"{outside}/f", "outside_roots")
    ]


def test_arun_with_a_read_only_exception_and_stdin(dirs):
    work, _ = dirs
    (work / ".git").mkdir()
    box = sandbox(work, read_only_paths=[work / ".git"])
    result = asyncio.run(box.arun(["sh", "-c", "cat >ok; cat ok >.git/config"], input="x"))
    assert (work / "ok").read_text() == "x"
    assert not (work / ".git" / "config").exists()
    assert result.returncode != 0
    assert [(d["path"], d["reason"]) for d in result.denies] == [
        (f"{work}/.git/config", "read_only")
    ]


def test_hidden_paths_are_unreadable_with_their_denies(dirs):
    work, outside = dirs
    (outside / "secret").mkdir()
    (outside / "secret" / "key").write_text("key")
    (outside / "open").write_text("open")
    box = sandbox(work, private_tmp=False, hide=[outside / "secret"])
    result = box.run(["sh", "-c", f"cat {outside}/secret/key; ls {outside}/secret; "
                      f"cat {outside}/open"])
    assert result.stdout == b"open"
    assert [(d["op"], d["path"], d["reason"]) for d in result.denies] == [
        ("open_read", f"{outside}/secret/key", "hidden"),
        ("readdir", f"{outside}/secret", "hidden"),
    ]


def test_restrict_reads_reads_the_boundary_and_the_runtime_only(dirs):
    work, outside = dirs
    (outside / "data").mkdir()
    (outside / "data" / "f").write_text("data")
    (outside / "secret").write_text("secret")
    (work / "mine").write_text("mine")
    box = sandbox(work, private_tmp=False, read_only_paths=[outside / "data"],
                  restrict_reads=True)
    # -I: the caller's PYTHONPATH, unreadable in the run, stays out of it.
    script = (f"print(open('mine').read(), open('{outside}/data/f').read())\n"
              f"try: open('{outside}/secret')\nexcept PermissionError: print('denied')")
    result = box.run([sys.executable, "-I", "-c", script])
    assert result.stdout.split() == [b"mine", b"data", b"denied"], result.stderr
    assert [(d["op"], d["path"], d["reason"]) for d in result.denies] == [
        ("open_read", f"{outside}/secret", "outside_roots")
    ]


def test_private_tmp_network_and_memory_options_reach_the_run(dirs):
    work, _ = dirs
    box = sandbox(work, memory_limit_mib=64)
    script = """
        echo x >/tmp/private && echo tmp
        cat /sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)/memory.max
        /usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", 9))' 2>&1 |
            grep -o PermissionError
    """
    result = box.run(["sh", "-c", script])
    assert result.stdout.split() == [b"tmp", str(64 << 20).encode(), b"PermissionError"]
    assert not os.path.exists("/tmp/private")
    assert [(d["op"], d["reason"]) for d in result.denies] == [("connect", "network")]


# The integration suite's fork counter: children that wait for DIR/go. It is
# copied into the run's cwd: a tree under /tmp or /var/tmp is hidden from a
# run with its own private /tmp and /var/tmp.
FORKS = os.path.join(os.path.dirname(__file__), "../../../tests/integration/forks.py")

BUSY = """
import time
t0 = time.monotonic()
while time.monotonic() - t0 < 2:
    pass
"""


def hits(result):
    return [(e["limit"], e["event"]) for e in result.limits_hit]


def test_limits_stop_the_run_with_their_typed_events(dirs):
    work, _ = dirs
    shutil.copy(FORKS, work / "forks.py")
    result = sandbox(work, pids_limit=16).run(
        ["sh", "-c", "/usr/bin/python3 forks.py .; touch go"]
    )
    assert int(result.stdout) < 16, result
    assert hits(result) == [("pids", "max")]
    result = sandbox(work, memory_limit_mib=32).run(
        ["/usr/bin/python3", "-c", "b = bytearray(256 << 20)"]
    )
    assert result.returncode == 137
    assert ("memory", "oom_kill") in hits(result)
    result = sandbox(work, cpu_limit=0.5).run(["/usr/bin/python3", "-c", BUSY])
    assert ("cpu", "throttled") in hits(result)
    assert sandbox(work).run(["true"]).limits_hit == []


def test_timeout_kills_the_whole_run(dirs):
    work, _ = dirs
    box = sandbox(work)
    # A grandchild in the background, as a build's daemon may be.
    result = box.run(["sh", "-c", "sleep 600 & echo $! >pid; wait"], timeout=15)
    assert result.timed_out
    assert result.returncode == 143
    assert not alive(int((work / "pid").read_text()))


def test_cancelled_arun_kills_the_whole_run(dirs):
    work, _ = dirs
    box = sandbox(work)

    async def cancel_once_started():
        task = asyncio.ensure_future(box.arun(["sh", "-c", "sleep 600 & echo $! >pid; wait"]))
        await asyncio.get_running_loop().run_in_executor(None, wait_for_file, work / "pid")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_once_started())
    assert not alive(int((work / "pid").read_text()))


def servers_of(pid):
    """The cgward exec --serve processes that pid started (zombies are none)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                serving = b"--serve" in cmdline.read().split(b"\0")
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
        if ppid == pid and serving:
            found.append(int(entry))
    return found


def test_each_run_takes_the_callers_limits_and_umask_as_they_are_then(dirs):
    work, _ = dirs
    box = sandbox(work)
    assert box.run(["true"]).returncode == 0  # an ordinary user's server is up
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    mask = os.umask(0o027)
    resource.setrlimit(resource.RLIMIT_NOFILE, (200, hard))
    try:
        result = box.run(["sh", "-c", "ulimit -n; umask"])
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        os.umask(mask)
    assert result.stdout.split() == [b"200", b"0027"], result


@pytest.mark.skipif(os.geteuid() == 0, reason="root runs cgward exec for each command")
def test_an_ordinary_users_runs_are_forks_of_one_server_started_again_when_killed(dirs):
    work, _ = dirs
    box = sandbox(work)
    for _ in range(2):
        assert box.run(["true"]).returncode == 0
    [server] = servers_of(os.getpid())
    os.kill(server, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while alive(server):
        assert time.monotonic() < deadline, f"the server {server} outlived SIGKILL for 60 s"
        time.sleep(0.05)
    result = box.run(["sh", "-c", "echo again"])
    assert (result.returncode, result.stdout) == (0, b"again\n"), result
    assert [p for p in servers_of(os.getpid()) if p != server] != []
    box.close()
    assert servers_of(os.getpid()) == []


# A caller under a seccomp filter (allow-all), installed after its server
# started: the agent checks the caller itself, not the server, and will not
# start the command for it (the filter would not carry over); the client
# then runs cgward exec, whose own child is confined instead.
SECCOMP_LATER = """
import ctypes, sys
from cgward import Sandbox

class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

box = Sandbox(sys.argv[1], cgward_path=sys.argv[2], private_tmp=False)
assert box.run(["true"]).returncode == 0
# One instruction: BPF_RET | BPF_K, SECCOMP_RET_ALLOW.
allow = (0x06).to_bytes(2, "little") + bytes(2) + (0x7FFF0000).to_bytes(4, "little")
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
program = Program(1, allow)
assert libc.prctl(22, 2, ctypes.byref(program), 0, 0) == 0, ctypes.get_errno()
result = box.run(["sh", "-c", "echo in >in; echo out >../outside/f || echo denied"])
print(result.returncode, result.stdout.decode().strip(), len(result.denies))
"""


def test_a_caller_confined_after_its_server_started_is_still_the_one_judged(dirs):
    work, outside = dirs
    done = subprocess.run(
        [sys.executable, "-c", SECCOMP_LATER, str(work), os.environ.get("CGWARD", "cgward")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "denied", "1"], done.stdout + done.stderr
    assert (work / "in").read_text() == "in\n"
    assert not (outside / "f").exists()
