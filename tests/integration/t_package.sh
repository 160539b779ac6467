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
