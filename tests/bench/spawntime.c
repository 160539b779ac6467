// SPDX-License-Identifier: GPL-2.0
/*
 * Start-up cost of a command: the median wall time from fork to the reaped
 * exit of REPS runs, so that `cgward exec -- true`, `bwrap ... true` and a
 * plain `true` are timed the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define MAX_REPS 64

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Microseconds for one run, or a negative value when CMD did not exit 0. */
static double time_run(char **argv)
{
	double start = now_us();
	int wstatus;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "spawntime: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &wstatus, 0) != pid || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
		return -1;
	return now_us() - start;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double us[MAX_REPS];
	int reps = argc > 2 ? atoi(argv[1]) : 0;

	if (reps < 1 || reps > MAX_REPS) {
		fputs("usage: spawntime REPS CMD [ARGS...]\n", stderr);
		return 2;
	}
	for (int rep = 0; rep < reps; rep++) {
		us[rep] = time_run(&argv[2]);
		if (us[rep] < 0) {
			fprintf(stderr, "spawntime: %s failed\n", argv[2]);
			return 1;
		}
	}
	qsort(us, (size_t)reps, sizeof(us[0]), compare_doubles);
	printf("cmd=%s reps=%d median_us=%.0f\n", argv[2], reps, us[reps / 2]);
	return 0;
}
