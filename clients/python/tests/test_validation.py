"""The Sandbox's arguments and the cgward exec command line they map to: no kernel needed."""

import os
import socket
import stat
import sys

import pytest

from cgward import Sandbox


@pytest.fixture
def fake_cgward(tmp_path):
    """An executable standing in for cgward: these tests never run it."""
    path = tmp_path / "cgward"
    path.write_text("#!/bin/sh\nexit 99\n")
    path.chmod(stat.S_IRWXU)
    return str(path)


@pytest.fixture
def work(tmp_path):
    path = tmp_path / "work"
    path.mkdir()
    return path


def options(box, argv=("true",)):
    """The options between `cgward exec` and `--events`."""
    line = box.command(list(argv), "/ev")
    assert line[:2] == [box.cgward, "exec"]
    events = line.index("--events")
    assert line[events + 1 : events + 3] == ["/ev", "--"]
    assert line[events + 3 :] == list(argv)
    return line[2:events]


@pytest.mark.parametrize("limit", [True, False, 1.0, 512.0, "512", None, -1, -512])
def test_memory_limit_must_be_a_non_negative_whole_number(work, fake_cgward, limit):
    with pytest.raises(ValueError, match="memory_limit_mib"):
        Sandbox(work, memory_limit_mib=limit, cgward_path=fake_cgward)


def test_memory_limit_maps_to_memory_and_zero_to_none(work, fake_cgward):
    box = Sandbox(work, memory_limit_mib=512, cgward_path=fake_cgward)
    assert options(box)[2:4] == ["--memory", "512"]
    assert "--memory" not in options(Sandbox(work, memory_limit_mib=0, cgward_path=fake_cgward))


@pytest.mark.parametrize("limit", [True, 1.5, 20.0, "4096", None, -1, 4194305])
def test_pids_limit_must_be_a_whole_number_in_range(work, fake_cgward, limit):
    with pytest.raises(ValueError, match="pids_limit"):
        Sandbox(work, pids_limit=limit, cgward_path=fake_cgward)


@pytest.mark.parametrize(
    "limit", [True, "0.5", None, -1, -0.5, 0.001, 65537, float("nan"), float("inf")]
)
def test_cpu_limit_must_be_a_number_of_cpus_in_range(work, fake_cgward, limit):
    with pytest.raises(ValueError, match="cpu_limit"):
        Sandbox(work, cpu_limit=limit, cgward_path=fake_cgward)


def test_pids_and_cpu_limits_map_to_their_options_and_zero_to_none(work, fake_cgward):
    box = Sandbox(work, pids_limit=64, cpu_limit=0.5, cgward_path=fake_cgward)
    assert options(box)[2:6] == ["--pids", "64", "--cpu", "0.5"]
    assert options(Sandbox(work, cpu_limit=2, cgward_path=fake_cgward))[2:4] == ["--cpu", "2"]
    plain = options(Sandbox(work, pids_limit=0, cpu_limit=0, cgward_path=fake_cgward))
    assert "--pids" not in plain and "--cpu" not in plain


@pytest.mark.parametrize("field", ["cwd", "writable_paths", "read_only_paths", "allow_unix"])
def test_paths_must_be_absolute(work, fake_cgward, field):
    relative = os.path.relpath(work)
    kwargs = {"cwd": relative} if field == "cwd" else {"cwd": work, field: [relative]}
    with pytest.raises(ValueError, match=f"{field}: .* is not an absolute path"):
        Sandbox(cgward_path=fake_cgward, **kwargs)


@pytest.mark.parametrize("field", ["cwd", "writable_paths", "read_only_paths", "allow_unix"])
def test_paths_must_exist(work, fake_cgward, field):
    missing = str(work / "missing")
    kwargs = {"cwd": missing} if field == "cwd" else {"cwd": work, field: [missing]}
    with pytest.raises(ValueError, match=f"{field}: .* does not exist"):
        Sandbox(cgward_path=fake_cgward, **kwargs)


@pytest.mark.parametrize("field", ["writable_paths", "read_only_paths", "allow_unix"])
def test_one_path_instead_of_a_sequence_is_refused(work, fake_cgward, field):
    with pytest.raises(ValueError, match=f"{field}: a sequence of paths"):
        Sandbox(work, cgward_path=fake_cgward, **{field: str(work)})


def test_writable_paths_must_be_directories_and_not_the_root(work, fake_cgward):
    (work / "file").write_text("x")
    with pytest.raises(ValueError, match="writable_paths: .* is not a directory"):
        Sandbox(work, writable_paths=[work / "file"], cgward_path=fake_cgward)
    with pytest.raises(ValueError, match="writable_paths: '/' cannot be a write root"):
        Sandbox(work, writable_paths=["/"], cgward_path=fake_cgward)


def test_cwd_and_writable_paths_are_roots_once_each_by_their_real_path(work, tmp_path, fake_cgward):
    other = tmp_path / "other"
    other.mkdir()
    (tmp_path / "link").symlink_to(other)
    box = Sandbox(
        work, writable_paths=[work, tmp_path / "link", other], cgward_path=fake_cgward
    )
    assert options(box) == ["--root", str(work), "--root", str(other), "--no-network",
                            "--private-tmp"]


def test_read_only_paths_nested_in_a_writable_one_become_ro(work, tmp_path, fake_cgward):
    (work / ".git").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    box = Sandbox(work, read_only_paths=[work / ".git", outside, "/usr"],
                  cgward_path=fake_cgward)
    assert options(box)[:4] == ["--root", str(work), "--ro", str(work / ".git")]
    assert options(box).count("--ro") == 1


def test_a_read_only_path_that_is_writable_too_is_refused(work, fake_cgward):
    with pytest.raises(ValueError, match="read_only_paths: .* is also writable"):
        Sandbox(work, read_only_paths=[work], cgward_path=fake_cgward)


def test_a_nested_read_only_file_is_refused(work, fake_cgward):
    (work / "lock").write_text("x")
    with pytest.raises(ValueError, match="read_only_paths: .* not a directory"):
        Sandbox(work, read_only_paths=[work / "lock"], cgward_path=fake_cgward)


def test_hidden_paths_map_to_hide_by_their_real_paths(work, tmp_path, fake_cgward):
    secret = tmp_path / "secret"
    secret.mkdir()
    (tmp_path / "netrc").write_text("x")
    (tmp_path / "link").symlink_to(secret)
    (work / "key").write_text("x")
    box = Sandbox(work, hide=[tmp_path / "link", str(tmp_path / "netrc"), work / "key"],
                  cgward_path=fake_cgward)
    hidden = [options(box)[i + 1] for i, o in enumerate(options(box)) if o == "--hide"]
    assert hidden == [str(secret), str(tmp_path / "netrc"), str(work / "key")]


@pytest.mark.parametrize("path", ["relative", "/no/such/path", None])
def test_a_hidden_path_must_exist_and_be_absolute(work, fake_cgward, path):
    with pytest.raises(ValueError, match="hide"):
        Sandbox(work, hide=[path], cgward_path=fake_cgward)


def test_hiding_a_writable_path_is_refused(work, tmp_path, fake_cgward):
    with pytest.raises(ValueError, match="hide: .* holds the writable path"):
        Sandbox(work, hide=[tmp_path], cgward_path=fake_cgward)
    with pytest.raises(ValueError, match="hide: a sequence of paths"):
        Sandbox(work, hide=str(tmp_path), cgward_path=fake_cgward)


def test_network_and_private_tmp_flags(work, fake_cgward):
    assert "--no-network" not in options(
        Sandbox(work, allow_network=True, cgward_path=fake_cgward))
    without = options(Sandbox(work, private_tmp=False, cgward_path=fake_cgward))
    assert "--private-tmp" not in without and "--spawn" in without
    with pytest.raises(ValueError, match="allow_network"):
        Sandbox(work, allow_network="no", cgward_path=fake_cgward)
    with pytest.raises(ValueError, match="private_tmp"):
        Sandbox(work, private_tmp=1, cgward_path=fake_cgward)


def test_tmp_itself_as_a_writable_path_with_private_tmp_is_refused(work, fake_cgward):
    with pytest.raises(ValueError, match="writable path '/tmp' with private_tmp"):
        Sandbox(work, writable_paths=["/tmp"], cgward_path=fake_cgward)
    assert ["--root", "/tmp"] == options(
        Sandbox(work, writable_paths=["/tmp"], private_tmp=False, cgward_path=fake_cgward)
    )[2:4]


def test_allow_unix_takes_sockets(work, fake_cgward):
    path = str(work / "agent.sock")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        box = Sandbox(work, allow_unix=[path], cgward_path=fake_cgward)
    assert options(box)[-2:] == ["--allow-unix", path]
    with pytest.raises(ValueError, match="allow_unix: .* is not a unix socket"):
        Sandbox(work, allow_unix=[work], cgward_path=fake_cgward)


def test_a_relative_cgward_path_is_made_absolute(work, fake_cgward, monkeypatch):
    monkeypatch.chdir(os.path.dirname(fake_cgward))
    assert Sandbox(work, cgward_path="./cgward").cgward == fake_cgward


def test_cgward_must_be_found(work, tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="cgward_path"):
        Sandbox(work, cgward_path=tmp_path / "none")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="cgward"):
        Sandbox(work)


@pytest.mark.parametrize("argv", ["echo hi", [], ["echo", b"hi"]])
def test_argv_is_a_non_empty_sequence_of_str(work, fake_cgward, argv):
    with pytest.raises(ValueError, match="argv"):
        Sandbox(work, cgward_path=fake_cgward).run(argv)


def test_capabilities_none_keeps_the_default_set(work, fake_cgward):
    options_line = options(Sandbox(work, cgward_path=fake_cgward))
    assert "--cap-add" not in options_line and "--cap-drop" not in options_line


def test_capabilities_all_maps_to_cap_add_all(work, fake_cgward):
    box = Sandbox(work, capabilities="all", cgward_path=fake_cgward)
    assert options(box)[-2:] == ["--cap-add", "all"]


def test_capabilities_names_replace_the_default_set(work, fake_cgward):
    box = Sandbox(work, capabilities=("sys_time", "CAP_NET_RAW", "SYS_TIME"),
                  cgward_path=fake_cgward)
    assert options(box)[-6:] == ["--cap-drop", "all", "--cap-add", "CAP_SYS_TIME",
                                 "--cap-add", "CAP_NET_RAW"]
    assert options(Sandbox(work, capabilities=[], cgward_path=fake_cgward))[-2:] == [
        "--cap-drop", "all"]
    generated = Sandbox(work, capabilities=(n for n in ["chown"]), cgward_path=fake_cgward)
    assert options(generated)[-2:] == ["--cap-add", "CAP_CHOWN"]


@pytest.mark.parametrize("capabilities", [
    ["SYS_FOO"], ["CAP_"], ["sys time"], ["CAP_CHOWN", "CAP_SYS_ADMINS"],  # unknown names
    "SYS_TIME", "ALL", "", b"all",  # a str other than "all", bytes
    ["all"],  # "all" is the argument, not a name
    42, 1.5, True, object(),  # not iterable
    [1], ["CHOWN", None], [b"CHOWN"],  # items that are not str
])
def test_bad_capabilities_are_refused(work, fake_cgward, capabilities):
    with pytest.raises(ValueError, match="capabilities"):
        Sandbox(work, capabilities=capabilities, cgward_path=fake_cgward)


def test_every_capability_of_5_10_to_6_12_is_known(work, fake_cgward):
    names = ("CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP "
             "LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK "
             "IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN "
             "SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE "
             "AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM "
             "BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE").split()
    assert len(names) == 41
    box = Sandbox(work, capabilities=names, cgward_path=fake_cgward)
    assert options(box).count("--cap-add") == 41


def read_roots(box):
    opts = options(box)
    return [opts[i + 1] for i, o in enumerate(opts) if o == "--read"]


def test_reads_stay_open_unless_restricted(work, tmp_path, fake_cgward):
    box = Sandbox(work, read_only_paths=[tmp_path], cgward_path=fake_cgward)
    assert read_roots(box) == [] and "--read-system" not in options(box)


def test_restrict_reads_reads_the_paths_given_and_the_runtime(work, tmp_path, fake_cgward):
    data = tmp_path / "data"
    data.mkdir()
    box = Sandbox(work, read_only_paths=[data], restrict_reads=True, cgward_path=fake_cgward)
    opts = options(box)
    assert opts[opts.index("--read-system") + 1] == "default"
    runtime = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.executable)}
    assert read_roots(box)[0] == str(data) and set(read_roots(box)[1:]) == runtime
    # The working directory is a write root, readable without a read root of its own.
    assert opts[:2] == ["--root", str(work)] and str(work) not in read_roots(box)


# The seed backend's cases: a writable path nested in a read-only one stays
# writable; a read-only path nested in a writable one is an exception.
def test_restrict_reads_nests_writable_in_read_only(tmp_path, fake_cgward):
    ro = tmp_path / "ro"
    (ro / "w").mkdir(parents=True)
    box = Sandbox(ro / "w", read_only_paths=[ro], restrict_reads=True, cgward_path=fake_cgward)
    assert ["--root", str(ro / "w")] == options(box)[:2]
    assert str(ro) in read_roots(box)


# A runtime reached through symbolic links, relative and absolute, is read
# where the links end: the interpreter's file, not the directory it lies in.
def test_restrict_reads_follows_the_runtimes_links_without_siblings(
    work, tmp_path, fake_cgward, monkeypatch
):
    real = tmp_path / "real"
    (real / "bin").mkdir(parents=True)
    (real / "bin" / "python3.99").write_text("")
    (real / "bin" / "sibling").write_text("")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(real / "bin" / "python3.99")
    (venv / "bin" / "python").symlink_to("../../alias")
    (tmp_path / "venv-link").symlink_to(venv)
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv-link"))
    monkeypatch.setattr(sys, "base_prefix", str(tmp_path / "venv-link"))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "venv-link" / "bin" / "python"))
    box = Sandbox(work, restrict_reads=True, cgward_path=fake_cgward)
    assert read_roots(box) == [str(venv), str(real / "bin" / "python3.99")]


def test_restrict_reads_refuses_a_hidden_runtime(work, fake_cgward):
    with pytest.raises(ValueError, match="to be read, is hidden"):
        Sandbox(work, restrict_reads=True, hide=[os.path.realpath(sys.executable)],
                cgward_path=fake_cgward)
