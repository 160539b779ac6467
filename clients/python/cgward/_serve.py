"""Runs through ``cgward exec --serve``: one resident cgward per Sandbox that
forks each run instead of a cgward executed for it (an ordinary user's way).

This process stays each run's caller: it connects to the agent itself and
passes that connection with its own pidfd, so the agent checks and places
the run by this process as it is at the call (its cgroup, limits,
identity), and the command gets this process's environment, umask and the
Sandbox's cwd. The server sends the run's events and then its status on a
socket of the run's own; shutting that socket down ends the run, as
SIGTERM ends ``cgward exec``'s. The protocol: user/exec/exec_serve.h.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import threading
import time
from typing import Mapping, Optional, Sequence

_HELLO_MAX = 65536
# What cgward takes in one message (EXEC_MESSAGE_MAX), less the room its own
# request to the agent adds to argv and env.
_REQUEST_MAX = 96 * 1024
_READ_SIZE = 65536


def _umask() -> int:
    """This process's umask, read without setting it: other threads may be creating files."""
    with open("/proc/self/status", "rb") as status:
        for line in status:
            if line.startswith(b"Umask:"):
                return int(line.split()[1], 8)
    raise OSError("no Umask in /proc/self/status")


class Server:
    """``cgward exec --serve`` with one Sandbox's options, started at its first run."""

    def __init__(self, argv: Sequence[str], cwd: str) -> None:
        self._argv = list(argv)
        self._cwd = cwd
        self._lock = threading.Lock()
        self._socket: Optional[socket.socket] = None
        self._proc: Optional[subprocess.Popen] = None
        self._agent_socket = ""
        self.usable = True

    def _start(self) -> bool:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            # Its own errors (its options refused) are each run's, through cgward exec.
            self._proc = subprocess.Popen(
                self._argv,
                stdin=theirs,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self._cwd,
            )
        hello = ours.recv(_HELLO_MAX)
        if not hello:
            ours.close()
            self._proc.wait()
            return False
        self._agent_socket = json.loads(hello)["agent_socket"]
        self._socket = ours
        return True

    def _stop(self) -> None:
        if self._socket is not None:
            self._socket.close()  # end of file: it ends, the runs under way go on
            self._socket = None
        if self._proc is not None:
            self._proc.wait()
            self._proc = None

    def _ready(self) -> bool:
        """Started, or started now (under the lock); False when it will not start."""
        if self._socket is None and not (self.usable and self._start()):
            self.usable = False
        return self._socket is not None

    def connect_to_agent(self) -> Optional[socket.socket]:
        """A connection of this process's own to the agent; None without a server or an agent."""
        with self._lock:
            if not self._ready():
                return None
            path = self._agent_socket
        agent = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            agent.connect(path)
        except OSError:
            agent.close()  # cgward exec says why
            return None
        return agent

    def send(self, request: bytes, fds: Sequence[int]) -> bool:
        """Sends a run's request: False when no server takes it."""
        with self._lock:
            for _ in range(2):
                if not self._ready():
                    return False
                try:
                    socket.send_fds(self._socket, [request], list(fds))
                    return True
                except OSError:  # it is gone (killed): another one
                    self._stop()
            return False

    def close(self) -> None:
        with self._lock:
            self._stop()


class ServedRun:
    """One run through a Server: its pipes, and the socket of its events and status.
    ValueError when argv and env do not fit a request (cgward exec says why)."""

    def __init__(
        self,
        server: Server,
        cwd: str,
        argv: Sequence[str],
        env: Optional[Mapping[str, str]],
        input: Optional[bytes],
    ) -> None:
        self._server = server
        self._cwd = cwd
        environ = os.environ if env is None else env
        request = {
            "argv": list(argv),
            "env": [f"{k}={v}" for k, v in environ.items()],
            "umask": _umask(),
        }
        # UTF-8, as JSON wants: a surrogate escape raises UnicodeEncodeError here.
        self._request = json.dumps(request, ensure_ascii=False).encode()
        if len(self._request) > _REQUEST_MAX:
            raise ValueError(f"a request of {len(self._request)} bytes")
        self._input = input or b""
        self._ours: list[int] = []  # stdin's writer (or -1), stdout's and stderr's readers
        self._reply: Optional[socket.socket] = None
        self._ending = False

    def start(self) -> bool:
        """Asks the server for the run: False when it cannot take it (cgward exec runs it)."""
        agent = self._server.connect_to_agent()
        if agent is None:
            return False
        theirs = [agent.detach()]
        sent = False
        try:
            theirs.append(os.pidfd_open(os.getpid()))
            theirs.append(os.open(self._cwd, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
            if self._input:
                stdin, writer = os.pipe()
                self._ours.append(writer)
            else:
                stdin = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
                self._ours.append(-1)
            theirs.append(stdin)
            for _ in range(2):
                reader, writer = os.pipe()
                self._ours.append(reader)
                theirs.append(writer)
            self._reply, reply = socket.socketpair()
            theirs.append(reply.detach())
            sent = self._server.send(self._request, theirs)
        finally:
            for fd in theirs:
                os.close(fd)
            if not sent:
                self._close()
        if self._ending:
            self.end()
        return sent

    def end(self) -> None:
        """Ends the run, from any thread: its processes killed, its last events sent."""
        self._ending = True
        try:
            if self._reply is not None:
                self._reply.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def collect(
        self, timeout: Optional[float], grace: float
    ) -> Optional[tuple[int, bytes, bytes, bool, list]]:
        """(returncode, stdout, stderr, timed_out, events) once the run is over
        (returncode -SIGKILL, as a killed cgward exec's, when no status came);
        None when the agent would not start the command for this process
        (its seccomp filter, namespaces or LSM label would not carry over) and
        nothing ran: cgward exec runs it then, its own child confined."""
        try:
            timed_out, (stdout, stderr, replies) = self._pump(timeout, grace)
        finally:
            self._close()
        lines = [json.loads(line) for line in replies.split(b"\n")[:-1] if line]
        last = lines.pop() if lines else {}
        if last.get("caller_starts"):
            return None
        if "exit" in last:
            return last["exit"], stdout, stderr, timed_out, lines
        # Its process was killed, or is not over within the grace: as a killed
        # cgward exec, it leaves the run's processes confined until they end.
        return -signal.SIGKILL, stdout, stderr, timed_out, lines

    def _pump(self, timeout: Optional[float], grace: float) -> tuple[bool, list[bytes]]:
        """Reads stdout, stderr and the replies to their ends, writing the input;
        past timeout, ends the run and reads on for grace seconds more."""
        assert self._reply is not None
        readers = [*self._ours[1:], self._reply.fileno()]
        chunks: dict[int, list[bytes]] = {fd: [] for fd in readers}
        pending = memoryview(self._input)
        deadline = None if timeout is None else time.monotonic() + timeout
        timed_out = False
        with selectors.DefaultSelector() as selector:
            for fd in readers:
                selector.register(fd, selectors.EVENT_READ)
            if self._ours[0] >= 0:
                os.set_blocking(self._ours[0], False)
                selector.register(self._ours[0], selectors.EVENT_WRITE)
            while any(key.fd in chunks for key in selector.get_map().values()):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    if timed_out:
                        break
                    timed_out = True
                    self.end()
                    deadline = time.monotonic() + grace
                    continue
                for key, _ in selector.select(left):
                    if key.fd in chunks:
                        chunk = os.read(key.fd, _READ_SIZE)
                        if chunk:
                            chunks[key.fd].append(chunk)
                        else:
                            selector.unregister(key.fd)
                        continue
                    try:
                        pending = pending[os.write(key.fd, pending[:_READ_SIZE]) :]
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        selector.unregister(key.fd)
                        os.close(key.fd)
                        self._ours[0] = -1
        return timed_out, [b"".join(chunks[fd]) for fd in readers]

    def _close(self) -> None:
        for fd in self._ours:
            if fd >= 0:
                os.close(fd)
        self._ours = []
        if self._reply is not None:
            self._reply.close()
            self._reply = None
