// SPDX-License-Identifier: GPL-2.0
/* cgward agent: its options; the agent itself is user/agent/agent.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "agent.h"
#include "agent_cmd.h"
#include "container_meta.h"
#include "cri_client.h"
#include "event_socket.h"
#include "exit_codes.h"
#include "metrics.h"
#include "plane.h"
#include "plane_cmd.h"
#include "policy.h"

static const char usage[] =
    "Usage: cgward agent --policy FILE [--events FILE] [--socket PATH] [--bpffs DIR]\n"
    "                    [--metrics [ADDR:]PORT] [--bundles DIR]... [--cri-socket PATH]\n"
    "                    [--exec-socket PATH|off]\n"
    "       cgward agent --unload [--force] [--bpffs DIR]\n"
    "Enforce a policy file (policy/schema.md) on every cgroup of this host.\n"
    "\n"
    "The programs and maps are pinned under DIR, so enforcement outlives the agent;\n"
    "an agent (or cgward exec) that finds them pinned adopts them: nothing is\n"
    "attached twice.\n"
    "Every existing cgroup and each new one is bound to the rule that selects it.\n"
    "SIGHUP, or a change to FILE, reloads it: an invalid file is reported and the\n"
    "policy in force stays. SIGTERM and SIGINT stop the agent, enforcement stays.\n"
    "\n"
    "  -p, --policy FILE  the policy file\n"
    "      --events FILE  also append deny and reload events (JSON lines) to FILE;\n"
    "                     they always go to stdout\n"
    "      --socket PATH  serve them to cgward events on this unix socket, root's\n"
    "                     only (default " EVENT_SOCKET_PATH ")\n"
    "      --exec-socket PATH|off\n"
    "                     confine cgward exec runs of users who are not root,\n"
    "                     asked on this socket (default the policy file's\n"
    "                     exec_socket, else " EXEC_SOCKET_PATH ", mode 0666);\n"
    "                     off: not served\n"
    "      --bpffs DIR    where to pin (default " PLANE_DIR ")\n"
    "      --unload       remove the pins under DIR: enforcement ends (as cgward\n"
    "                     unload); refused while cgroups are bound\n"
    "      --force        with --unload: unload even though cgroups are bound\n"
    "      --metrics [ADDR:]PORT\n"
    "                     serve Prometheus metrics at http://ADDR:PORT/metrics; ADDR\n"
    "                     is an IPv4 or [IPv6] address, default " METRICS_DEFAULT_ADDRESS "\n"
    "                     (off by default)\n"
    "      --bundles DIR  where the CRI runtime keeps each container's OCI bundle\n"
    "                     (DIR/<id>/config.json, or CRI-O's DIR/<id>/userdata/):\n"
    "                     names Kubernetes containers for the kubernetes selector\n"
    "                     and events; may repeat (default " CONTAINERD_BUNDLES "\n"
    "                     and " CRIO_BUNDLES ")\n"
    "      --cri-socket PATH\n"
    "                     the CRI runtime's socket, asked for pods' labels and\n"
    "                     annotations (PodSandboxStatus) when a rule selects by\n"
    "                     them and the bundle does not carry them (containerd's);\n"
    "                     default " CRI_DEFAULT_SOCKET "\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 stopped by SIGTERM or SIGINT, or unloaded; 1 a runtime error\n"
    "(or --unload failed, or another build migrated the plane, or unloaded it);\n"
    "2 invalid options or policy (each error printed as\n"
    "FILE:LINE:COL: error: MESSAGE), nothing loaded; 125 enforcement (or the\n"
    "metrics endpoint) could not be set up.\n";

enum {
	OPT_EVENTS = 256,
	OPT_SOCKET,
	OPT_BPFFS,
	OPT_UNLOAD,
	OPT_FORCE,
	OPT_METRICS,
	OPT_BUNDLES,
	OPT_CRI_SOCKET,
	OPT_EXEC_SOCKET
};

static const struct option long_options[] = {
    {"policy", required_argument, NULL, 'p'},
    {"events", required_argument, NULL, OPT_EVENTS},
    {"socket", required_argument, NULL, OPT_SOCKET},
    {"bpffs", required_argument, NULL, OPT_BPFFS},
    {"unload", no_argument, NULL, OPT_UNLOAD},
    {"force", no_argument, NULL, OPT_FORCE},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"bundles", required_argument, NULL, OPT_BUNDLES},
    {"cri-socket", required_argument, NULL, OPT_CRI_SOCKET},
    {"exec-socket", required_argument, NULL, OPT_EXEC_SOCKET},
    {"help", no_argument, NULL, 'h'},
    {},
};

/* Returns 0 to run, 1 when --help was shown, negative on a usage error. */
static int parse_options(int argc, char **argv, struct agent_options *opt)
{
	int c;

	opt->bpffs = PLANE_DIR;
	opt->socket_path = EVENT_SOCKET_PATH;
	opt->cri_socket = CRI_DEFAULT_SOCKET;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			opt->policy_path = optarg;
			break;
		case OPT_EVENTS:
			opt->events_path = optarg;
			break;
		case OPT_SOCKET:
			opt->socket_path = optarg;
			break;
		case OPT_BPFFS:
			opt->bpffs = optarg;
			break;
		case OPT_UNLOAD:
			opt->unload = true;
			break;
		case OPT_FORCE:
			opt->force = true;
			break;
		case OPT_METRICS:
			opt->metrics_address = optarg;
			break;
		case OPT_BUNDLES:
			if (opt->n_bundle_dirs ==
			    sizeof(opt->bundle_dirs) / sizeof(*opt->bundle_dirs)) {
				fprintf(stderr, "cgward: agent: too many --bundles\n%s", usage);
				return -EINVAL;
			}
			opt->bundle_dirs[opt->n_bundle_dirs++] = optarg;
			break;
		case OPT_CRI_SOCKET:
			opt->cri_socket = optarg;
			break;
		case OPT_EXEC_SOCKET:
			if (strcmp(optarg, "off") != 0 &&
			    (optarg[0] != '/' ||
			     strlen(optarg) >= sizeof(((struct exec_socket_config *)0)->path))) {
				fprintf(stderr,
					"cgward: agent: --exec-socket must be off or an absolute "
					"path shorter than 108 bytes\n%s",
					usage);
				return -EINVAL;
			}
			opt->exec_socket = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			fputs(usage, stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cgward: agent: unexpected argument '%s'\n%s", argv[optind], usage);
		return -EINVAL;
	}
	if (opt->metrics_address && !opt->unload) {
		struct sockaddr_storage addr;
		char err[256];

		if (metrics_parse_address(opt->metrics_address, &addr, err, sizeof(err))) {
			fprintf(stderr, "cgward: agent: --metrics %s\n%s", err, usage);
			return -EINVAL;
		}
	}
	if (opt->n_bundle_dirs == 0) {
		opt->bundle_dirs[opt->n_bundle_dirs++] = CONTAINERD_BUNDLES;
		opt->bundle_dirs[opt->n_bundle_dirs++] = CRIO_BUNDLES;
	}
	if (!opt->unload && !opt->policy_path) {
		fprintf(stderr, "cgward: agent: --policy FILE is required\n%s", usage);
		return -EINVAL;
	}
	return 0;
}

int cmd_agent(int argc, char **argv)
{
	struct agent_options opt = {0};
	int ret = parse_options(argc, argv, &opt);

	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	if (opt.unload)
		return plane_cmd_unload(opt.bpffs, opt.force);
	return agent_run(&opt);
}
