// SPDX-License-Identifier: GPL-2.0
/*
 * attach OBJECT CMD [ARGS...]: loads every program of the BPF object OBJECT,
 * attaches each, runs CMD while they are attached and exits with its status
 * (the programs go with this process). The bench's floor case runs its
 * loops under tests/bench/floor.bpf.c this way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

static int run(char **argv)
{
	int wstatus;
	pid_t pid = fork();

	if (pid < 0)
		return 125;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "attach: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &wstatus, 0) != pid)
		return 125;
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;

	if (argc < 3) {
		fputs("usage: attach OBJECT CMD [ARGS...]\n", stderr);
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "attach: %s: cannot load: %s\n", argv[1], strerror(errno));
		return 125;
	}
	bpf_object__for_each_program(prog, obj)
	{
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "attach: %s: %s\n", bpf_program__name(prog),
				strerror(errno));
			return 125;
		}
	}
	return run(argv + 2);
}
