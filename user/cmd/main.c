// SPDX-License-Identifier: GPL-2.0
/* cgward: kernel-enforced write roots for cgroups. */
#include <stdio.h>
#include <string.h>

#include "agent_cmd.h"
#include "doctor.h"
#include "events_cmd.h"
#include "exec.h"
#include "exec_spawn.h"
#include "exit_codes.h"
#include "gc_cmd.h"
#include "plane_cmd.h"
#include "policy_cmd.h"
#include "spawner.h"
#include "status_cmd.h"

static const char usage[] =
    "Usage: cgward COMMAND [ARGS...]\n"
    "Confine the writes of every process of a cgroup to its write roots, in the kernel.\n"
    "\n"
    "Commands:\n"
    "  exec      run a command confined to write roots (cgward exec --help)\n"
    "  agent     enforce a policy file on every cgroup of the host, pinned\n"
    "  status    show the pinned agent state; exit 0 when attached\n"
    "  events    print (and follow) the agent's events, filtered\n"
    "  policy    validate a YAML policy file (cgward policy check FILE)\n"
    "  load      load and pin the enforcement plane (exec and agent do it too)\n"
    "  unload    remove the enforcement plane; refused while cgroups are bound\n"
    "  gc        remove cgroups and policies left by runs that were killed\n"
    "  doctor    check whether this kernel can enforce\n"
    "\n"
    "Each command has --help.\n"
    "\n"
    "  -h, --help     this text\n"
    "      --version  print the version\n"
    "\n"
    "Exit status: the command's; 2 usage error.\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
    {"exec", cmd_exec},	    {"agent", cmd_agent},   {"status", cmd_status},
    {"events", cmd_events}, {"policy", cmd_policy}, {"gc", cmd_gc},
    {"doctor", cmd_doctor}, {"load", cmd_load},	    {"unload", cmd_unload},
};

int main(int argc, char **argv)
{
	/* The agent's spawner, executed by the agent (spawner.h): no command of the user's. */
	if (argc == 1 && strcmp(argv[0], SPAWNER_NAME) == 0)
		return spawner_main(exec_spawn_supervise);
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		puts("cgward " CGWARD_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "cgward: unknown command '%s'\n%s", argv[1], usage);
	return EXIT_USAGE;
}
