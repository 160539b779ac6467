# The Debian package (make deb, issue 17): installed with dpkg -i in the VM
# (whose root is a throwaway overlay), it checks the kernel with cgward
# doctor and enforces with /usr/bin/cgward exec; dpkg -r removes it.
# dpkg reads its database of the whole host: ~5 s a call under emulation.
# On a host that is not the test VM (make test-integration), dpkg -i would
# change the host's packages for real: the test says so and does nothing.
# shellcheck shell=bash

test_package_installs_enforces_and_removes() {
	local deb status=0
	if [ ! -d /run/cgward-vm ]; then
		echo "not in tests/vm/run: the package is not installed on a real host" >&2
		return 0
	fi
	deb=$(ls "$PWD"/build/cgward_*.deb 2>/dev/null | tail -n 1)
	[ -n "$deb" ] || fail "no build/cgward_*.deb: run make deb"
	! dpkg -s cgward >/dev/null 2>&1 || fail "cgward is installed already"
	# man-db's trigger would rebuild its index, which is not under test.
	rm -f /var/lib/man-db/auto-update
	dpkg -i "$deb" >"$T/dpkg.out" 2>&1 || fail "dpkg -i: $(cat "$T/dpkg.out")"
	trap 'dpkg -r cgward >/dev/null 2>&1' EXIT
	[ "$(dpkg-query -W -f '${Status}' cgward)" = "install ok installed" ] ||
		fail "status: $(dpkg-query -W -f '${Status}' cgward)"
	dpkg -L cgward | grep -qx /usr/share/man/man8/cgward-agent.8.gz || fail "$(dpkg -L cgward)"
	/usr/bin/cgward doctor >"$T/doctor.out" 2>&1 || fail "cgward doctor: $(cat "$T/doctor.out")"
	# fsop prints the errno's name and exits 1: exec passes its status on.
	/usr/bin/cgward exec --cgroup-parent "$SUITE_CGROUP" --root "$W" -- \
		"$FSOP" write "$O/f" x >"$T/exec.out" 2>"$T/exec.err" || status=$?
	[ "$status" -eq 1 ] || fail "exec exited $status, want 1: $(cat "$T/exec.err")"
	expect_content "$T/exec.out" EPERM
	expect_absent "$O/f"
	grep -q "\"verdict\":\"deny\".*\"path\":\"$O/f\"" "$T/exec.err" ||
		fail "no deny event on stderr: $(cat "$T/exec.err")"
	dpkg -r cgward >"$T/dpkg.out" 2>&1 || fail "dpkg -r: $(cat "$T/dpkg.out")"
	expect_absent /usr/bin/cgward
	# A conffile stays after dpkg -r, until a purge (not run: 9 s under
	# emulation, and the VM's root is thrown away).
	expect_content /etc/cgward/policy.yaml "$(cat deploy/policy.yaml)"
	[ "$(dpkg-query -W -f '${Status}' cgward)" = "deinstall ok config-files" ] ||
		fail "after dpkg -r: $(dpkg-query -W -f '${Status}' cgward)"
}

# A stand-in for systemd, for the package's scripts in the VM (whose init is
# not systemd): /run/systemd/system tells them the host runs it, and
# deb-systemd-invoke and systemctl, first on PATH, log each call to
# $T/service.log. deb-systemd-invoke runs the unit as cgward.service does:
# ExecStart's agent, stopped as KillMode=process stops it (SIGTERM to the
# agent alone), its stderr in $T/service.err.
systemd_stand_in() {
	mkdir -p "$T/bin" /run/systemd/system
	# systemctl --root=/ (deb-systemd-helper's preset on a first installation)
	# edits only files: the real one does it; the others are only logged.
	printf '#!/bin/sh\necho "systemctl $*" >>"%s"\ncase " $* " in *" --root="*) exec %s "$@" ;; esac\n' \
		"$T/service.log" "$(command -v systemctl)" >"$T/bin/systemctl"
	cat >"$T/bin/deb-systemd-invoke" <<STANDIN
#!/bin/bash
echo "invoke \$*" >>"$T/service.log"
pid_file=$T/service.pid
stop() {
	[ -s "\$pid_file" ] || return 0
	kill -TERM "\$(cat "\$pid_file")"
	while kill -0 "\$(cat "\$pid_file")" 2>/dev/null; do sleep 0.1; done
	rm -f "\$pid_file"
}
start() {
	setsid /usr/bin/cgward agent --policy /etc/cgward/policy.yaml >/dev/null 2>>"$T/service.err" &
	echo \$! >"\$pid_file"
}
case \$1 in start) start ;; stop) stop ;; restart) stop && start ;; esac
STANDIN
	chmod 755 "$T/bin/systemctl" "$T/bin/deb-systemd-invoke"
}

# The package built again from build/other/cgward (another BPF build, as a
# new release is) as version VERSION+other, uncompressed: dpkg -i of it is an
# upgrade.
other_release_deb() { # DEB OUTPUT
	dpkg-deb -R "$1" "$T/other"
	cp build/other/cgward "$T/other/usr/bin/cgward"
	sed -i 's/^Version: .*/&+other/' "$T/other/DEBIAN/control"
	(cd "$T/other" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
		xargs -0 md5sum) >"$T/other/DEBIAN/md5sums"
	dpkg-deb --root-owner-group -Znone --build "$T/other" "$2" >/dev/null
}

# dpkg -i enables and starts the service; dpkg -i of a new release restarts
# it, and the new agent upgrades the plane in place while a run of the old
# release goes on, confined throughout; dpkg -r stops the service and leaves
# the plane pinned, so that the run stays confined.
test_package_upgrade_restarts_the_service_and_the_boundary_holds() {
	local deb run status=0
	if [ ! -d /run/cgward-vm ]; then
		echo "not in tests/vm/run: the package is not installed on a real host" >&2
		return 0
	fi
	[ -x build/other/cgward ] || fail "no build/other/cgward: make test-vm builds it"
	[ ! -e /run/systemd/system ] || fail "/run/systemd/system: systemd runs here"
	deb=$(ls "$PWD"/build/cgward_*.deb 2>/dev/null | tail -n 1)
	[ -n "$deb" ] || fail "no build/cgward_*.deb: run make deb"
	other_release_deb "$deb" "$T/other.deb"
	systemd_stand_in
	rm -f /var/lib/man-db/auto-update
	trap 'PATH=$T/bin:$PATH dpkg -r cgward >/dev/null 2>&1; rm -rf /run/systemd/system
		"$CGWARD" unload --force >/dev/null 2>&1' EXIT
	PATH=$T/bin:$PATH dpkg -i "$deb" >"$T/dpkg.out" 2>&1 || fail "dpkg -i: $(cat "$T/dpkg.out")"
	# restart when an earlier test left the package's conffiles: dpkg calls
	# that an upgrade too, and restart starts a stopped unit.
	grep -qxE "invoke (re)?start cgward.service" "$T/service.log" || fail "$(cat "$T/service.log")"
	: >"$T/service.log"
	[ -L /etc/systemd/system/multi-user.target.wants/cgward.service ] || fail "not enabled"
	wait_line "$T/service.err" "ready:"
	# shellcheck disable=SC2016 # expanded by the confined shell
	/usr/bin/cgward exec --cgroup-parent "$SUITE_CGROUP" --root "$W" -- sh -c '
		: >"$1/ready"
		while [ ! -e "$1/go" ]; do sleep 0.05; done
		"$2" write "$3/after" x; "$2" write "$1/after" x' sh "$W" "$FSOP" "$O" \
		>"$T/run.out" 2>"$T/run.err" &
	run=$!
	wait_file "$W/ready"
	PATH=$T/bin:$PATH dpkg -i "$T/other.deb" >"$T/dpkg.out" 2>&1 ||
		fail "dpkg -i of the new release: $(cat "$T/dpkg.out")"
	grep -qx "invoke restart cgward.service" "$T/service.log" || fail "$(cat "$T/service.log")"
	wait_line "$T/service.err" "ready:" 2
	grep -q "upgraded the plane under $PINS in place" "$T/service.err" ||
		fail "agent: $(cat "$T/service.err")"
	touch "$W/go"
	wait "$run" || status=$?
	[ "$status" -eq 0 ] || fail "run exited $status: $(cat "$T/run.err")"
	expect_content "$T/run.out" "$(lines EPERM ok)"
	expect_absent "$O/after"
	grep -q "\"verdict\":\"deny\".*\"path\":\"$O/after\"" "$T/run.err" ||
		fail "no deny event: $(cat "$T/run.err")"
	PATH=$T/bin:$PATH dpkg -r cgward >"$T/dpkg.out" 2>&1 || fail "dpkg -r: $(cat "$T/dpkg.out")"
	grep -qx "invoke stop cgward.service" "$T/service.log" || fail "$(cat "$T/service.log")"
	[ ! -s "$T/service.pid" ] || fail "the agent was not stopped"
	[ "$(readlink /etc/systemd/system/cgward.service)" = /dev/null ] || fail "not masked"
	[ -e "$PINS/links" ] || fail "dpkg -r unloaded the plane"
}
