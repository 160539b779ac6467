// SPDX-License-Identifier: GPL-2.0
/* cgward events: connects to the agent's event socket and prints the lines that pass. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "event_filter.h"
#include "event_socket.h"
#include "events_cmd.h"
#include "exit_codes.h"

static const char usage[] =
    "Usage: cgward events [--follow] [--cgroup GLOB] [--op OP] [--verdict deny|audit]\n"
    "                     [--socket PATH]\n"
    "Print the events of the running agent (cgward agent) as JSON lines: the most\n"
    "recent ones it holds (up to 256), then, with --follow, each new one as it\n"
    "happens. Each filter given must match; \"lost\" lines (events the kernel\n"
    "dropped) always pass.\n"
    "\n"
    "  -f, --follow        keep printing events until the agent stops\n"
    "      --cgroup GLOB   only events of cgroups matching GLOB, a policy selector\n"
    "                      glob over the cgroup path (/ci.slice/**, /job-*.scope)\n"
    "      --op OP         only this operation (open_write, unlink, connect, ...)\n"
    "      --verdict V     only deny (enforced) or audit (audit mode) events\n"
    "      --socket PATH   the agent's socket (default " EVENT_SOCKET_PATH ")\n"
    "  -h, --help          this text\n"
    "\n"
    "The socket is root's only. Exit status: 0 done (without --follow); 1 no agent\n"
    "to connect to, or it stopped while followed; 2 usage error.\n";

enum { OPT_CGROUP = 256, OPT_OP, OPT_VERDICT, OPT_SOCKET };

static const struct option long_options[] = {
    {"follow", no_argument, NULL, 'f'},
    {"cgroup", required_argument, NULL, OPT_CGROUP},
    {"op", required_argument, NULL, OPT_OP},
    {"verdict", required_argument, NULL, OPT_VERDICT},
    {"socket", required_argument, NULL, OPT_SOCKET},
    {"help", no_argument, NULL, 'h'},
    {},
};

struct events_options {
	struct event_filter filter;
	const char *socket_path;
	bool follow;
};

/* 1 for --help, 0 to run, -1 on a usage error. */
static int parse_options(int argc, char **argv, struct events_options *opt)
{
	char err[512];
	int c;

	*opt = (struct events_options){.socket_path = EVENT_SOCKET_PATH};
	optind = 1;
	while ((c = getopt_long(argc, argv, "fh", long_options, NULL)) != -1) {
		switch (c) {
		case 'f':
			opt->follow = true;
			break;
		case OPT_CGROUP:
			opt->filter.cgroup_glob = optarg;
			break;
		case OPT_OP:
			opt->filter.op = optarg;
			break;
		case OPT_VERDICT:
			opt->filter.verdict = optarg;
			break;
		case OPT_SOCKET:
			opt->socket_path = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			fputs(usage, stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cgward: events: unexpected argument '%s'\n%s", argv[optind],
			usage);
		return -1;
	}
	if (event_filter_validate(&opt->filter, err, sizeof(err))) {
		fprintf(stderr, "cgward: events: %s\n", err);
		return -1;
	}
	return 0;
}

static int connect_agent(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static bool passes(const struct event_filter *f, const char *line)
{
	if (!f->cgroup_glob && !f->op && !f->verdict)
		return true; /* printed as the agent wrote it, parsed or not */
	return event_filter_match(f, line);
}

/* Prints the lines that pass until the end of the recent ones (or, following, of the stream). */
static int print_events(FILE *stream, const struct events_options *opt)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	bool recent = true;

	while ((len = getline(&line, &size, stream)) > 0) {
		if (recent && strcmp(line, "\n") == 0) {
			recent = false;
			if (!opt->follow)
				break;
			continue;
		}
		if (passes(&opt->filter, line)) {
			fputs(line, stdout);
			fflush(stdout);
		}
	}
	free(line);
	if (len > 0)
		return 0;
	fprintf(stderr, "cgward: events: the agent closed the stream%s\n",
		recent ? " before its recent events ended (too many subscribers?)" : "");
	return EXIT_RUNTIME_ERROR;
}

int cmd_events(int argc, char **argv)
{
	struct events_options opt;
	FILE *stream;
	int fd, ret;

	ret = parse_options(argc, argv, &opt);
	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	fd = connect_agent(opt.socket_path);
	if (fd < 0) {
		fprintf(stderr, "cgward: events: cannot connect to %s: %s%s\n", opt.socket_path,
			strerror(-fd),
			fd == -ENOENT || fd == -ECONNREFUSED ? " (is cgward agent running?)" : "");
		return EXIT_RUNTIME_ERROR;
	}
	stream = fdopen(fd, "r");
	if (!stream) {
		fprintf(stderr, "cgward: events: %s\n", strerror(errno));
		close(fd);
		return EXIT_RUNTIME_ERROR;
	}
	ret = print_events(stream, &opt);
	fclose(stream);
	return ret;
}
