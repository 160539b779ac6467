// SPDX-License-Identifier: GPL-2.0
/* cgward exec: run one command in a fresh cgroup whose writes are confined to its roots. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "capabilities.h"
#include "cgward_abi.h"
#include "exec.h"
#include "exec_run.h"
#include "exec_serve.h"
#include "exit_codes.h"
#include "run_limits.h"
#include "plane.h"
#include "read_system.h"

/* cgward exec's options: the run's request, and the flags that settle its unix default. */
struct exec_options {
	struct exec_request req;
	bool serve; /* --serve: each command comes from the client on stdin */
	bool allow_unix_all;
	bool no_unix_outside; /* given, though it is the default */
};

static const char usage[] =
    "Usage: cgward exec [OPTIONS] -- CMD [ARGS...]\n"
    "       cgward exec --serve [OPTIONS]\n"
    "Run CMD in a new cgroup whose processes may write only beneath the write roots.\n"
    "The kernel enforces it through the enforcement plane pinned under " PLANE_DIR ",\n"
    "shared by every run and the agent; the first run on a host loads it, and it\n"
    "stays (cgward unload). Killed, cgward leaves CMD running confined (cgward gc).\n"
    "\n"
    "  -r, --root DIR        a write root (repeatable); default: the current directory\n"
    "      --ro DIR          a read-only exception nested in a root (repeatable);\n"
    "                        the most specific path wins\n"
    "      --hide PATH       a file or tree that may not be read, listed, executed\n"
    "                        or written, whatever root it is in (repeatable)\n"
    "      --read PATH       a file or tree CMD may read, list and execute (repeatable).\n"
    "                        With --read or --read-system, nothing else may be: only\n"
    "                        these, the write roots and the system set\n"
    "      --learn           run CMD with its reads and writes outside the roots audited,\n"
    "                        not denied; at the end, print the roots that would have\n"
    "                        let it run with no deny, as options and as a policy rule\n"
    "      --read-system SET the system set, readable where reads are confined: default\n"
    "                        (/usr, /etc, /proc, the harmless devices: docs/exec.md) or\n"
    "                        none\n"
    "      --audit           report would-be denies as \"verdict\":\"audit\", allow them\n"
    "      --no-network      deny connect, bind and sendmsg to IPv4 and IPv6 addresses\n"
    "      --allow-loopback  with --no-network: loopback addresses stay reachable\n"
    "      --allow-unix PATH connecting and sending to this unix socket is allowed\n"
    "                        (repeatable), e.g. \"$SSH_AUTH_SOCK\". By default unix sockets\n"
    "                        whose file is outside the roots, and abstract sockets created\n"
    "                        outside the command's cgroup, are denied: a daemon there\n"
    "                        could write on the command's behalf\n"
    "      --allow-unix-all  allow every unix socket (the former default)\n"
    "      --allow-dev PATH  this device may be opened for writing and given ioctls\n"
    "                        (repeatable), e.g. /dev/kvm or /dev/fuse. By default devices\n"
    "                        other than null, zero, full, random, urandom, tty, ptmx and\n"
    "                        the ptys are not, and no device node may be created\n"
    "      --no-unix-outside the default; accepted for older command lines\n"
    "  -m, --memory MIB      memory limit in whole MiB (0: none). cgroup v2: memory.max of\n"
    "                        the command's cgroup; hybrid hosts: also a v1 memory cgroup\n"
    "      --pids N          at most N processes and threads at once (pids.max; 0: none)\n"
    "      --cpu N           at most N CPUs' worth of time, e.g. 0.5 or 2 (cpu.max; 0: none)\n"
    "      --events FILE     append deny events (JSON lines) to FILE instead of stderr\n"
    "      --cgroup-parent DIR  create the cgroup beneath this cgroup2 directory (default:\n"
    "                        within cgward's own cgroup, whose limits then hold for CMD)\n"
    "      --cap-add NAME    CMD may use this capability on the host (repeatable; NAME\n"
    "                        as in capabilities(7), CAP_ optional, or all)\n"
    "      --cap-drop NAME   it may not (repeatable). Both apply in order to the default\n"
    "                        set: CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL\n"
    "                        SETGID SETUID SETPCAP NET_BIND_SERVICE NET_RAW SYS_CHROOT\n"
    "                        MKNOD AUDIT_WRITE SETFCAP. Those of a user namespace CMD\n"
    "                        makes are its own\n"
    "      --private-tmp     CMD gets its own empty /tmp, /var/tmp and /dev/shm (tmpfs,\n"
    "                        writable, gone when the run ends); roots beneath them stay\n"
    "                        at their paths. Use it for compilers, mktemp, sort, Python's\n"
    "                        tempfile and multiprocessing, rather than a root on /tmp\n"
    "      --spawn           not root: have the agent start CMD as you, as --private-tmp\n"
    "                        does, rather than confine this process's child: no cgroup\n"
    "                        migration to wait for. CMD gets stdin, stdout and stderr\n"
    "                        only, and no controlling terminal. A caller the agent cannot\n"
    "                        start it for (under seccomp, an LSM label of its own, in\n"
    "                        another namespace, chrooted) has its child confined\n"
    "                        instead. As root, CMD always starts in its cgroup: nothing\n"
    "                        changes\n"
    "      --serve           not root: run each command a client sends on stdin (a\n"
    "                        socket), with these options, as --spawn or --private-tmp:\n"
    "                        the Python client's way, a fork per command, not an exec\n"
    "                        (docs/exec.md)\n"
    "  -h, --help            this text\n"
    "\n"
    "Exit status: CMD's status (128+N when killed by signal N; 137 when killed for\n"
    "exceeding --memory); 2: invalid options or roots, nothing run; 125: enforcement\n"
    "could not be set up (nothing run) or the cgroup could not be removed; 126: CMD\n"
    "cannot be executed; 127: CMD not found.\n";

static int add_root_arg(struct exec_options *opt, const char *path, __u32 access)
{
	if (opt->req.n_root_args == EXEC_MAX_ROOTS) {
		fprintf(stderr, "cgward: exec: more than %d roots\n", EXEC_MAX_ROOTS);
		return -E2BIG;
	}
	opt->req.root_args[opt->req.n_root_args] = path;
	opt->req.root_access[opt->req.n_root_args++] = access;
	return 0;
}

enum {
	OPT_RO = 256,
	OPT_HIDE,
	OPT_READ,
	OPT_READ_SYSTEM,
	OPT_LEARN,
	OPT_AUDIT,
	OPT_EVENTS,
	OPT_CGROUP_PARENT,
	OPT_NO_NETWORK,
	OPT_ALLOW_LOOPBACK,
	OPT_NO_UNIX_OUTSIDE,
	OPT_PRIVATE_TMP,
	OPT_SPAWN,
	OPT_SERVE,
	OPT_ALLOW_UNIX,
	OPT_ALLOW_UNIX_ALL,
	OPT_ALLOW_DEV,
	OPT_CAP_ADD,
	OPT_CAP_DROP,
	OPT_PIDS,
	OPT_CPU
};

/* --memory, --pids or --cpu (c: its option's value) into the run's limits. */
static int parse_limit(struct exec_options *opt, int c, const char *text)
{
	struct run_limits *limits = &opt->req.limits;
	char err[256];
	int ret =
	    c == 'm' ? memory_limit_parse("--memory", text, &limits->memory_mib, err, sizeof(err))
	    : c == OPT_PIDS ? pids_limit_parse("--pids", text, &limits->pids, err, sizeof(err))
			    : cpu_limit_parse("--cpu", text, &limits->cpu_milli, err, sizeof(err));

	if (ret)
		fprintf(stderr, "cgward: %s\n", err);
	return ret;
}

static int change_capability(struct exec_options *opt, bool keep, const char *name)
{
	char err[256];
	int ret = capabilities_change(&opt->req.dropped_caps, keep, name,
				      keep ? "--cap-add" : "--cap-drop", err, sizeof(err));

	if (ret)
		fprintf(stderr, "cgward: %s\n", err);
	return ret;
}

static int parse_read_system(struct exec_options *opt, const char *set)
{
	for (int i = 0; i < READ_SYSTEM_SETS; i++) {
		if (strcmp(set, read_system_words[i]) == 0) {
			opt->req.read_system_none = i == READ_SYSTEM_NONE;
			return 0;
		}
	}
	fprintf(stderr, "cgward: exec: --read-system '%s': %s\n", set, READ_SYSTEM_CHOICES);
	return -EINVAL;
}

/* Appends the PATH of a repeatable --allow-unix or --allow-dev to its list. */
static int add_node_arg(const char **args, size_t *n_args, const char *option, const char *path)
{
	if (*n_args == EXEC_MAX_ROOTS) {
		fprintf(stderr, "cgward: exec: more than %d %s\n", EXEC_MAX_ROOTS, option);
		return -E2BIG;
	}
	args[(*n_args)++] = path;
	return 0;
}

/* Unix sockets outside the roots are denied unless --allow-unix-all. */
static int settle_unix_default(struct exec_options *opt)
{
	if (opt->allow_unix_all && (opt->no_unix_outside || opt->req.n_unix_args)) {
		fprintf(stderr, "cgward: exec: --allow-unix-all allows every unix socket; "
				"--no-unix-outside and --allow-unix contradict it\n");
		return -EINVAL;
	}
	if (!opt->allow_unix_all)
		opt->req.policy_flags |= CGWARD_POLICY_NO_UNIX_OUTSIDE;
	return 0;
}

/* CMD, unless --serve: its client sends each, and their events come back to it. */
static int settle_command(int argc, char **argv, struct exec_options *opt)
{
	if (opt->serve && (optind < argc || opt->req.events_path)) {
		fprintf(stderr,
			"cgward: exec: --serve takes no %s: the client sends each command "
			"and gets its events\n",
			optind < argc ? "command" : "--events");
		return -EINVAL;
	}
	if (opt->serve)
		return 0;
	if (optind >= argc) {
		fprintf(stderr, "cgward: exec: no command given\n%s", usage);
		return -EINVAL;
	}
	opt->req.argv = &argv[optind];
	return 0;
}

static const struct option long_options[] = {
    {"root", required_argument, NULL, 'r'},
    {"ro", required_argument, NULL, OPT_RO},
    {"hide", required_argument, NULL, OPT_HIDE},
    {"read", required_argument, NULL, OPT_READ},
    {"read-system", required_argument, NULL, OPT_READ_SYSTEM},
    {"learn", no_argument, NULL, OPT_LEARN},
    {"audit", no_argument, NULL, OPT_AUDIT},
    {"no-network", no_argument, NULL, OPT_NO_NETWORK},
    {"allow-loopback", no_argument, NULL, OPT_ALLOW_LOOPBACK},
    {"no-unix-outside", no_argument, NULL, OPT_NO_UNIX_OUTSIDE},
    {"memory", required_argument, NULL, 'm'},
    {"pids", required_argument, NULL, OPT_PIDS},
    {"cpu", required_argument, NULL, OPT_CPU},
    {"events", required_argument, NULL, OPT_EVENTS},
    {"cgroup-parent", required_argument, NULL, OPT_CGROUP_PARENT},
    {"private-tmp", no_argument, NULL, OPT_PRIVATE_TMP},
    {"spawn", no_argument, NULL, OPT_SPAWN},
    {"serve", no_argument, NULL, OPT_SERVE},
    {"allow-unix", required_argument, NULL, OPT_ALLOW_UNIX},
    {"allow-unix-all", no_argument, NULL, OPT_ALLOW_UNIX_ALL},
    {"allow-dev", required_argument, NULL, OPT_ALLOW_DEV},
    {"cap-add", required_argument, NULL, OPT_CAP_ADD},
    {"cap-drop", required_argument, NULL, OPT_CAP_DROP},
    {"help", no_argument, NULL, 'h'},
    {},
};

/* Returns 0 to run, 1 when --help was shown, negative on a usage error. */
static int parse_options(int argc, char **argv, struct exec_options *opt)
{
	int c, ret = 0;

	optind = 1;
	opt->req.dropped_caps = capabilities_default_dropped();
	while (ret == 0 && (c = getopt_long(argc, argv, "+r:m:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'r':
			ret = add_root_arg(opt, optarg, CGWARD_ACCESS_WRITE);
			break;
		case OPT_RO:
			ret = add_root_arg(opt, optarg, CGWARD_ACCESS_READ_ONLY);
			break;
		case OPT_HIDE:
			ret = add_root_arg(opt, optarg, CGWARD_ACCESS_HIDDEN);
			break;
		case OPT_READ:
			opt->req.policy_flags |= CGWARD_POLICY_READ_ROOTS;
			ret = add_root_arg(opt, optarg, CGWARD_ACCESS_READ);
			break;
		case OPT_READ_SYSTEM:
			opt->req.policy_flags |= CGWARD_POLICY_READ_ROOTS;
			ret = parse_read_system(opt, optarg);
			break;
		case OPT_LEARN:
			opt->req.policy_flags |= CGWARD_POLICY_AUDIT | CGWARD_POLICY_READ_ROOTS;
			opt->req.learn = true;
			break;
		case OPT_AUDIT:
			opt->req.policy_flags |= CGWARD_POLICY_AUDIT;
			break;
		case OPT_NO_NETWORK:
			opt->req.policy_flags |= CGWARD_POLICY_NO_NETWORK;
			break;
		case OPT_ALLOW_LOOPBACK:
			opt->req.policy_flags |= CGWARD_POLICY_ALLOW_LOOPBACK;
			break;
		case OPT_NO_UNIX_OUTSIDE:
			opt->no_unix_outside = true;
			break;
		case OPT_ALLOW_UNIX:
			ret = add_node_arg(opt->req.unix_args, &opt->req.n_unix_args,
					   "--allow-unix", optarg);
			break;
		case OPT_ALLOW_DEV:
			ret = add_node_arg(opt->req.device_args, &opt->req.n_device_args,
					   "--allow-dev", optarg);
			break;
		case OPT_CAP_ADD:
		case OPT_CAP_DROP:
			ret = change_capability(opt, c == OPT_CAP_ADD, optarg);
			break;
		case OPT_ALLOW_UNIX_ALL:
			opt->allow_unix_all = true;
			break;
		case 'm':
		case OPT_PIDS:
		case OPT_CPU:
			ret = parse_limit(opt, c, optarg);
			break;
		case OPT_EVENTS:
			opt->req.events_path = optarg;
			break;
		case OPT_CGROUP_PARENT:
			opt->req.cgroup_parent = optarg;
			break;
		case OPT_PRIVATE_TMP:
			opt->req.private_tmp = true;
			break;
		case OPT_SPAWN:
			opt->req.spawn = true;
			break;
		case OPT_SERVE:
			opt->serve = opt->req.spawn = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			fputs(usage, stderr);
			return -EINVAL;
		}
	}
	if (ret)
		return ret;
	if ((opt->req.policy_flags & CGWARD_POLICY_ALLOW_LOOPBACK) &&
	    !(opt->req.policy_flags & CGWARD_POLICY_NO_NETWORK)) {
		fprintf(stderr, "cgward: exec: --allow-loopback needs --no-network\n");
		return -EINVAL;
	}
	ret = settle_unix_default(opt);
	if (ret)
		return ret;
	return settle_command(argc, argv, opt);
}

int cmd_exec(int argc, char **argv)
{
	struct exec_options opt = {};
	int ret = parse_options(argc, argv, &opt);

	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	return opt.serve ? exec_serve(&opt.req) : exec_run(&opt.req);
}
