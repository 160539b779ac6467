"""Run commands inside a cgward write boundary, through ``cgward exec``.

A :class:`Sandbox` holds what a run may do: its working directory and the
other directories it may write (``cgward exec --root``), read-only
exceptions nested in them (``--ro``), a memory limit (``--memory``),
whether it may reach the network (``--no-network``), a private ``/tmp``
(``--private-tmp``), the unix sockets it may connect to
(``--allow-unix``), the capabilities its root may use on the host
(``--cap-add``, ``--cap-drop``), the paths it may not read (``--hide``)
and, with ``restrict_reads``, the only paths it may read (``--read``,
``--read-system``). Each :meth:`Sandbox.run` or :meth:`Sandbox.arun` is one
``cgward exec``: one cgroup of its own, enforced by the kernel from the
command's first instruction, removed when the run ends. For an ordinary
user, a Sandbox's runs are forks of one ``cgward exec --serve`` that it
starts at its first run and stops at :meth:`Sandbox.close`.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from ._serve import Server, ServedRun

__all__ = ["Sandbox", "RunResult", "TERMINATE_GRACE_S"]

StrPath = Union[str, "os.PathLike[str]"]

# cgward exec ends a run on SIGTERM: it kills the whole cgroup, waits up to
# 5 s for the kernel to empty it and removes it. Killed with SIGKILL instead,
# it would leave the command running confined (until `cgward gc`), so the
# client waits this long after SIGTERM before it resorts to SIGKILL.
TERMINATE_GRACE_S = 30.0

# --private-tmp gives the command its own empty copies of these: one of them
# as a writable path would be the shared directory again (cgward refuses it).
_PRIVATE_TMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")

# capabilities(7) on Linux 5.10 to 6.12, CAP_CHOWN (0) to CAP_CHECKPOINT_RESTORE
# (40): the names cgward exec takes. Checked here so that a typo is a
# ValueError when the Sandbox is made, not an exit status 2 at its first run.
_CAPABILITIES = frozenset(
    "CAP_" + name
    for name in (
        "CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP "
        "LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK "
        "IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN "
        "SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE "
        "AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND "
        "AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE"
    ).split()
)


@dataclass
class RunResult:
    """What one run produced.

    ``returncode`` is ``cgward exec``'s exit status: the command's own, or
    128+N when it was killed by signal N (137 when it went past
    ``memory_limit_mib``; 143 when the run was ended by its timeout),
    125 when enforcement could not be set up (nothing ran), 126 or 127
    when the command could not be executed or was not found.
    ``denies`` holds the run's deny events, one dict per event as
    ``cgward exec --events`` writes them (``op``, ``path``, ``reason``,
    ``pid``, ``comm``, ``time``...). ``limits_hit`` holds its limit events
    (``{"op": "limit", "limit": "memory", "event": "oom_kill", "count": 1,
    ...}``; ``"pids"`` ``"max"``; ``"cpu"`` ``"throttled"``), empty when the
    run hit none.
    """

    returncode: int
    stdout: bytes
    stderr: bytes
    denies: list[dict[str, Any]] = field(default_factory=list)
    timed_out: bool = False
    limits_hit: list[dict[str, Any]] = field(default_factory=list)


def _existing_absolute(path: StrPath, what: str) -> str:
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    if not isinstance(text, str):
        raise ValueError(f"{what}: {text!r} is not a str path")
    if not os.path.isabs(text):
        raise ValueError(f"{what}: {text!r} is not an absolute path")
    if not os.path.exists(text):
        raise ValueError(f"{what}: {text!r} does not exist")
    return text


def _directory(path: StrPath, what: str) -> str:
    """The real path of an existing directory: cgward refuses roots that are symlinks."""
    real = os.path.realpath(_existing_absolute(path, what))
    if not os.path.isdir(real):
        raise ValueError(f"{what}: {os.fspath(path)!r} is not a directory")
    if real == "/":
        raise ValueError(f"{what}: '/' cannot be a write root")
    return real


def _is_beneath(path: str, ancestor: str) -> bool:
    return path.startswith(ancestor.rstrip("/") + "/")


def _paths(paths: Iterable[StrPath], what: str) -> list[StrPath]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise ValueError(f"{what}: a sequence of paths, not one path")
    return list(paths)


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what}: {value!r} is not a bool")
    return value


def _capabilities(value: object) -> Union[None, str, list[str]]:
    """None, "all", or the names as capabilities(7) spells them, each once."""
    if value is None or value == "all":
        return value
    if isinstance(value, (str, bytes)):
        raise ValueError(
            f"capabilities: {value!r} is neither 'all' nor a sequence of names "
            "(one name goes in a list)"
        )
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise ValueError(
            f"capabilities: {value!r} is neither None, 'all' nor a sequence of names"
        ) from None
    names: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"capabilities: {item!r} is not a str")
        if item.lower() == "all":
            raise ValueError("capabilities: 'all' is not a name; pass capabilities='all'")
        name = item.upper()
        if not name.startswith("CAP_"):
            name = "CAP_" + name
        if name not in _CAPABILITIES:
            raise ValueError(f"capabilities: unknown capability {item!r}")
        if name not in names:
            names.append(name)
    return names


_PIDS_LIMIT_MAX = 4194304  # the kernel's PID_MAX_LIMIT
_CPU_LIMIT_MAX = 65536


def _whole(value: object, name: str, unit: str, most: Optional[int] = None) -> int:
    """A limit that is a whole number (0: none), or a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}: {value!r} is not a whole number of {unit}")
    if value < 0:
        raise ValueError(f"{name}: {value} is negative")
    if most is not None and value > most:
        raise ValueError(f"{name}: {value} is too large (at most {most})")
    return value


def _cpus(value: object) -> str:
    """cpu_limit as --cpu takes it ("" for none), or a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"cpu_limit: {value!r} is not a number of CPUs")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"cpu_limit: {value!r} is not a number of CPUs")
    if value == 0:
        return ""
    milli = round(value * 1000)
    if milli < 10 or value > _CPU_LIMIT_MAX:
        raise ValueError(
            f"cpu_limit: {value!r} is out of range (0.01 to {_CPU_LIMIT_MAX} CPUs, or 0)"
        )
    return f"{milli // 1000}.{milli % 1000:03d}".rstrip("0").rstrip(".")


class Sandbox:
    """A write boundary for commands, enforced by cgward in the kernel.

    :param cwd: the directory commands start in; writable (a write root).
    :param writable_paths: further directories the commands may write.
    :param read_only_paths: paths the commands may read but not write.
        One nested in a writable path becomes a read-only exception
        (``--ro``), which must be a directory. One outside every writable
        path needs nothing unless ``restrict_reads``, which makes it a read
        root (``--read``).
    :param memory_limit_mib: memory limit of the whole run in whole MiB;
        0 sets none. Past it the kernel kills the run (returncode 137).
        Every run is also within the limits of the caller's own cgroup.
    :param allow_network: False denies connecting, binding and sending to
        IPv4 and IPv6 addresses, loopback included (``--no-network``).
    :param private_tmp: the commands get their own empty ``/tmp``,
        ``/var/tmp`` and ``/dev/shm``, gone when the run ends.
    :param allow_unix: unix sockets outside the writable paths that the
        commands may connect to (such as ``$SSH_AUTH_SOCK``); every other one
        is denied.
    :param capabilities: the capabilities a root inside may use on the host.
        None keeps cgward's default set (Docker's 14 and DAC_READ_SEARCH);
        ``"all"`` keeps every one; a sequence of capabilities(7) names
        (``"CAP_SYS_TIME"``, or ``"sys_time"``) keeps those only, and an
        empty one none.
    :param pids_limit: at most this many processes and threads at once in
        the run (``--pids``); 0 sets none. A fork past it fails (EAGAIN).
    :param cpu_limit: at most this many CPUs' worth of time, such as 0.5 or
        2 (``--cpu``); 0 sets none.
    :param hide: files or trees the commands may not read, list, execute or
        write, whatever else allows them (``--hide``), such as ``~/.ssh``
        (expanded by the caller); their existence stays visible. None may
        hold ``cwd`` or a writable path.
    :param restrict_reads: the commands may read, list and execute only
        ``cwd``, the writable and read-only paths, the running interpreter's
        runtime (``sys.prefix``, ``sys.base_prefix`` and the interpreter
        itself, at the ends of their symbolic links, so that a link's
        siblings stay unreadable) and cgward's system set (``/usr``,
        ``/etc``, ``/proc``, the harmless devices). False (the default)
        leaves reads open, but for ``hide``.
    :param cgward_path: the ``cgward`` binary; default: found on ``PATH``.
    :raises ValueError: an argument is invalid (the message names it).
    :raises FileNotFoundError: no ``cgward`` binary.
    """

    def __init__(
        self,
        cwd: StrPath,
        writable_paths: Iterable[StrPath] = (),
        read_only_paths: Iterable[StrPath] = (),
        memory_limit_mib: int = 0,
        allow_network: bool = False,
        private_tmp: bool = True,
        allow_unix: Iterable[StrPath] = (),
        capabilities: Union[None, str, Iterable[str]] = None,
        *,
        pids_limit: int = 0,
        cpu_limit: float = 0,
        hide: Iterable[StrPath] = (),
        restrict_reads: bool = False,
        cgward_path: Optional[StrPath] = None,
    ) -> None:
        self.memory_limit_mib = _whole(memory_limit_mib, "memory_limit_mib", "MiB")
        self.pids_limit = _whole(pids_limit, "pids_limit", "processes", _PIDS_LIMIT_MAX)
        self._cpu_option = _cpus(cpu_limit)
        self.cpu_limit = cpu_limit
        self.cwd = _directory(cwd, "cwd")
        self.writable_paths = [
            _directory(p, "writable_paths") for p in _paths(writable_paths, "writable_paths")
        ]
        self.read_only_paths = [
            _existing_absolute(p, "read_only_paths")
            for p in _paths(read_only_paths, "read_only_paths")
        ]
        self.allow_network = _flag(allow_network, "allow_network")
        self.private_tmp = _flag(private_tmp, "private_tmp")
        self.allow_unix = [
            self._unix_socket(p) for p in _paths(allow_unix, "allow_unix")
        ]
        self.capabilities = _capabilities(capabilities)
        self.hide = [
            os.path.realpath(_existing_absolute(p, "hide")) for p in _paths(hide, "hide")
        ]
        self.restrict_reads = _flag(restrict_reads, "restrict_reads")
        self.cgward = self._find_cgward(cgward_path)
        self._options = self._exec_options()
        # Root binds each run itself; an ordinary user's go through the agent.
        self._server = (
            Server([self.cgward, "exec", "--serve", *self._options], self.cwd)
            if os.geteuid() != 0
            else None
        )
        if self._server is not None:
            weakref.finalize(self, self._server.close)

    def close(self) -> None:
        """Stops the Sandbox's ``cgward exec --serve``, if it started one; runs under way
        go on. A later run starts another."""
        if self._server is not None:
            self._server.close()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _unix_socket(path: StrPath) -> str:
        text = _existing_absolute(path, "allow_unix")
        if not stat.S_ISSOCK(os.stat(text).st_mode):
            raise ValueError(f"allow_unix: {text!r} is not a unix socket")
        return text

    @staticmethod
    def _find_cgward(path: Optional[StrPath]) -> str:
        found = shutil.which(os.fspath(path) if path is not None else "cgward")
        if found is None:
            raise FileNotFoundError(
                f"cgward_path: {os.fspath(path) if path else 'cgward'!r} is not an "
                "executable (install cgward or pass cgward_path=)"
            )
        # Absolute: the run starts in cwd.
        return os.path.abspath(found)

    def _write_roots(self) -> list[str]:
        """cwd and writable_paths, each directory once (cgward refuses a root twice)."""
        roots: list[str] = []
        seen: set[tuple[int, int]] = set()
        for path in [self.cwd, *self.writable_paths]:
            st = os.stat(path)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            roots.append(path)
        return roots

    def _read_roots(self, write_roots: list[str]) -> list[str]:
        """The read-only paths outside the writable ones and, for
        restrict_reads, the runtime's: each once, by its real path, none
        that is writable already (cgward refuses a root twice)."""
        paths = [os.path.realpath(p) for p in self.read_only_paths]
        if self.restrict_reads:
            paths += [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.executable)]
        roots: list[str] = []
        seen = {(st.st_dev, st.st_ino) for st in map(os.stat, write_roots)}
        for path in paths:
            st = os.stat(path)
            if (st.st_dev, st.st_ino) in seen or any(_is_beneath(path, r) for r in write_roots):
                continue
            seen.add((st.st_dev, st.st_ino))
            roots.append(path)
        return roots

    def _exec_options(self) -> list[str]:
        roots = self._write_roots()
        if self.private_tmp:
            for root in roots:
                if root in _PRIVATE_TMP_DIRS:
                    raise ValueError(
                        f"writable path {root!r} with private_tmp: the command gets its "
                        "own; use a directory beneath it"
                    )
        options: list[str] = []
        for root in roots:
            options += ["--root", root]
        for path in self.read_only_paths:
            real = os.path.realpath(path)
            if real in roots:
                raise ValueError(f"read_only_paths: {path!r} is also writable")
            if any(_is_beneath(real, root) for root in roots):
                if not os.path.isdir(real):
                    raise ValueError(
                        f"read_only_paths: {path!r} lies in a writable path and is not a "
                        "directory; cgward's read-only exceptions are directories"
                    )
                options += ["--ro", real]
        for path in self.hide:
            for root in roots:
                if root == path or _is_beneath(root, path):
                    raise ValueError(f"hide: {path!r} holds the writable path {root!r}")
            options += ["--hide", path]
        if self.restrict_reads:
            for path in self._read_roots(roots):
                if any(path == h or _is_beneath(path, h) for h in self.hide):
                    raise ValueError(f"hide: {path!r}, to be read, is hidden")
                options += ["--read", path]
            options += ["--read-system", "default"]
        if self.memory_limit_mib:
            options += ["--memory", str(self.memory_limit_mib)]
        if self.pids_limit:
            options += ["--pids", str(self.pids_limit)]
        if self._cpu_option:
            options += ["--cpu", self._cpu_option]
        if not self.allow_network:
            options.append("--no-network")
        # Either way the agent starts the command (an ordinary user's): no cgroup
        # migration to wait for. Under --spawn, a caller whose confinement would not
        # carry over (seccomp, another namespace) has its own child confined instead.
        options.append("--private-tmp" if self.private_tmp else "--spawn")
        for sock in self.allow_unix:
            options += ["--allow-unix", sock]
        if self.capabilities == "all":
            options += ["--cap-add", "all"]
        elif self.capabilities is not None:
            options += ["--cap-drop", "all"]
            for name in self.capabilities:
                options += ["--cap-add", name]
        return options

    def command(self, argv: Sequence[str], events_path: str) -> list[str]:
        """The ``cgward exec`` command line that runs argv, its deny events to events_path."""
        return [self.cgward, "exec", *self._options, "--events", events_path, "--", *_argv(argv)]

    def _served_run(
        self, argv: Sequence[str], env: Optional[Mapping[str, str]], input: Optional[bytes]
    ) -> Optional[ServedRun]:
        """A run for the Sandbox's server, not yet asked; None when cgward exec is to run it."""
        argv = _argv(argv)
        if self._server is None or not self._server.usable:
            return None
        try:
            return ServedRun(self._server, self.cwd, argv, env, input)
        except ValueError:  # not UTF-8, or too large: cgward exec says so
            return None

    def _serve(self, served: ServedRun, timeout: Optional[float]) -> Optional[RunResult]:
        """Asks for the run and waits for it; None when cgward exec is to run it."""
        if not served.start():
            return None
        outcome = served.collect(timeout, TERMINATE_GRACE_S)
        if outcome is None:
            assert self._server is not None
            self._server.usable = False  # this process's confinement would not carry over
            return None
        return _result(*outcome)

    async def _aserve(self, served: ServedRun, timeout: Optional[float]) -> Optional[RunResult]:
        """_serve on a thread of its own; cancelled, it ends the run first."""
        loop = asyncio.get_running_loop()
        done: "asyncio.Future[Optional[RunResult]]" = loop.create_future()

        def settle(result: Optional[RunResult], error: Optional[BaseException]) -> None:
            if done.cancelled():
                return
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(result)

        def serve() -> None:
            try:
                loop.call_soon_threadsafe(settle, self._serve(served, timeout), None)
            except BaseException as error:  # to the awaiting task
                loop.call_soon_threadsafe(settle, None, error)

        threading.Thread(target=serve, name="cgward-run", daemon=True).start()
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            served.end()
            try:
                await asyncio.wait_for(done, TERMINATE_GRACE_S)
            except BaseException:
                pass
            raise

    def _process_options(
        self, env: Optional[Mapping[str, str]], input: Optional[Union[bytes, str]]
    ) -> dict[str, Any]:
        """How cgward exec is started, by subprocess and asyncio alike."""
        return {
            "cwd": self.cwd,
            "env": dict(env) if env is not None else None,
            "stdin": subprocess.PIPE if input is not None else subprocess.DEVNULL,
            "stdout": subprocess.PIPE,
            "stderr": subprocess.PIPE,
        }

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        input: Optional[Union[bytes, str]] = None,
    ) -> RunResult:
        """Runs argv in the sandbox and waits for it.

        :param timeout: seconds; past them the whole run is ended (cgward
            exec gets SIGTERM and kills every process of the run) and
            ``timed_out`` is set.
        :param env: the command's environment (default: this process's).
        :param input: its standard input (a str is encoded as UTF-8); None
            gives it an empty one.
        """
        served = self._served_run(argv, env, _encoded(input))
        result = self._serve(served, timeout) if served is not None else None
        if result is not None:
            return result
        with _EventsFile() as events:
            proc = subprocess.Popen(
                self.command(argv, events.path), **self._process_options(env, input)
            )
            timed_out = False
            try:
                stdout, stderr = proc.communicate(_encoded(input), timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                stdout, stderr = _end_run(proc)
            except BaseException:
                _end_run(proc)
                raise
            return events.result(proc.returncode, stdout, stderr, timed_out)

    async def arun(
        self,
        argv: Sequence[str],
        *,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        input: Optional[Union[bytes, str]] = None,
    ) -> RunResult:
        """:meth:`run` for asyncio. Cancelling it ends the whole run first."""
        served = self._served_run(argv, env, _encoded(input))
        result = await self._aserve(served, timeout) if served is not None else None
        if result is not None:
            return result
        with _EventsFile() as events:
            proc = await asyncio.create_subprocess_exec(
                *self.command(argv, events.path), **self._process_options(env, input)
            )
            output = asyncio.ensure_future(proc.communicate(_encoded(input)))
            timed_out = False
            try:
                stdout, stderr = await asyncio.wait_for(asyncio.shield(output), timeout)
            except asyncio.TimeoutError:
                timed_out = True
                stdout, stderr = await _end_run_async(proc, output)
            except BaseException:
                # Cancelled: the run ends before the cancellation goes on.
                await _end_run_async(proc, output)
                raise
            return events.result(proc.returncode, stdout, stderr, timed_out)


def _argv(argv: Sequence[str]) -> list[str]:
    if isinstance(argv, (str, bytes)) or not argv:
        raise ValueError("argv: a non-empty sequence of arguments, not a string")
    if not all(isinstance(a, str) for a in argv):
        raise ValueError(f"argv: {argv!r} holds a non-str argument")
    return list(argv)


def _result(
    returncode: int, stdout: bytes, stderr: bytes, timed_out: bool, events: list
) -> RunResult:
    """A run's result, with its deny and limit events."""
    return RunResult(
        returncode,
        stdout,
        stderr,
        denies=[e for e in events if e.get("verdict") == "deny"],
        timed_out=timed_out,
        limits_hit=[e for e in events if e.get("op") == "limit"],
    )


def _encoded(data: Optional[Union[bytes, str]]) -> Optional[bytes]:
    return data.encode() if isinstance(data, str) else data


def _end_run(proc: subprocess.Popen) -> tuple[bytes, bytes]:
    """SIGTERM to cgward exec, which kills the run's cgroup; its output so far."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.communicate(timeout=TERMINATE_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe:
                pipe.close()
        return b"", b""


async def _end_run_async(
    proc: asyncio.subprocess.Process, output: "asyncio.Future[tuple[bytes, bytes]]"
) -> tuple[bytes, bytes]:
    if proc.returncode is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return await asyncio.wait_for(asyncio.shield(output), TERMINATE_GRACE_S)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        output.cancel()
        return b"", b""


class _EventsFile:
    """A file of the run's own for ``cgward exec --events``, removed afterwards."""

    def __enter__(self) -> "_EventsFile":
        fd, self.path = tempfile.mkstemp(prefix="cgward-events-", suffix=".jsonl")
        os.close(fd)
        return self

    def __exit__(self, *exc: object) -> None:
        os.unlink(self.path)

    def result(
        self, returncode: int, stdout: bytes, stderr: bytes, timed_out: bool
    ) -> RunResult:
        """The run's result, with the deny and limit events it wrote."""
        with open(self.path, encoding="utf-8") as lines:
            events = [json.loads(line) for line in lines if line.strip()]
        return _result(returncode, stdout, stderr, timed_out, events)
