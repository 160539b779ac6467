// SPDX-License-Identifier: GPL-2.0
/*
 * writeloop: writes to a file inside a boundary and to one outside it, in
 * turn and as fast as it can, until a stop file exists; then prints what
 * the kernel answered to each, as "inside_ok N inside_denied N outside_ok N
 * outside_denied N other N". A test counts them across an upgrade of the
 * plane: no write outside may succeed and none inside may be denied.
 * It runs at the lowest priority: it still writes whenever a CPU is free,
 * the upgrade's waits for the kernel included, while two such loops on the
 * test VM's two emulated CPUs would otherwise slow the upgrade they span
 * several times over.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

struct outcomes {
	unsigned long ok, denied, other;
};

static void write_once(const char *path, struct outcomes *out)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd >= 0) {
		out->ok++;
		close(fd);
	} else if (errno == EPERM) {
		out->denied++;
	} else {
		out->other++;
	}
}

int main(int argc, char **argv)
{
	struct outcomes inside = {}, outside = {};

	if (argc != 4) {
		fprintf(stderr, "usage: writeloop INSIDE OUTSIDE STOP\n");
		return 2;
	}
	errno = 0;
	if (nice(19) == -1 && errno) {
		perror("writeloop: nice");
		return 1;
	}
	while (access(argv[3], F_OK) != 0) {
		write_once(argv[1], &inside);
		write_once(argv[2], &outside);
	}
	printf("inside_ok %lu inside_denied %lu outside_ok %lu outside_denied %lu other %lu\n",
	       inside.ok, inside.denied, outside.ok, outside.denied, inside.other + outside.other);
	return 0;
}
