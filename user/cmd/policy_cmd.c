// SPDX-License-Identifier: GPL-2.0
#include "policy_cmd.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "policy.h"

enum {
	EXIT_VALID = 0,
	EXIT_UNREADABLE = 1,
	EXIT_INVALID = 2, /* also a usage error */
};

static const char usage[] =
    "usage: cgward policy check [--quiet] FILE...\n"
    "       cgward policy --help\n"
    "\n"
    "Parses and validates policy files (policy/schema.md) as the agent would load\n"
    "them. Each error is printed on stderr as FILE:LINE:COLUMN: error: MESSAGE; a\n"
    "valid file prints FILE: ok (N policies) on stdout. Roots are resolved on this\n"
    "host, so check a policy on the kind of host that will enforce it.\n"
    "\n"
    "options:\n"
    "  -q, --quiet  print nothing for valid files\n"
    "  -h, --help   print this help\n"
    "\n"
    "exit status:\n"
    "  0  every file is valid\n"
    "  1  a file could not be read, and none is invalid\n"
    "  2  a file is invalid, or usage error\n";

/* arg, when not NULL, is the argument the problem is about. */
static int usage_error(const char *problem, const char *arg)
{
	if (arg)
		fprintf(stderr, "cgward: policy: %s '%s'\n\n%s", problem, arg, usage);
	else
		fprintf(stderr, "cgward: policy: %s\n\n%s", problem, usage);
	return EXIT_INVALID;
}

/*
 * A policy holds an open descriptor per root, up to 4096 rules of 64 roots:
 * far more than the usual soft limit of 1024, and the hard limit is there to use.
 */
static void raise_open_file_limit(void)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		setrlimit(RLIMIT_NOFILE, &limit);
	}
}

static int check_file(const char *path, bool quiet)
{
	struct policy_diags diags;
	struct policy_set set;
	int ret = policy_load(path, &set, &diags);

	for (size_t i = 0; i < diags.n; i++)
		fprintf(stderr, "%s:%d:%d: error: %s\n", path, diags.items[i].line,
			diags.items[i].column, diags.items[i].message);
	if (!ret && !quiet)
		printf("%s: ok (%zu %s)\n", path, set.n_rules,
		       set.n_rules == 1 ? "policy" : "policies");
	else if (ret && ret != -EINVAL)
		fprintf(stderr, "cgward: %s: %s\n", path, strerror(-ret));
	policy_set_free(&set);
	policy_diags_free(&diags);
	if (ret == -EINVAL)
		return EXIT_INVALID;
	return ret ? EXIT_UNREADABLE : EXIT_VALID;
}

static bool is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

static int print_help(void)
{
	fputs(usage, stdout);
	return EXIT_VALID;
}

static bool is_option(const char *arg)
{
	return arg[0] == '-' && arg[1] != '\0';
}

/*
 * argv[0] is "check". Options may come anywhere before "--"; every file is
 * checked, whatever the earlier ones held.
 */
static int cmd_policy_check(int argc, char **argv)
{
	bool quiet = false;
	int status = EXIT_VALID, n_files = 0, end_of_options = argc;

	for (int i = 1; i < end_of_options; i++) {
		if (!is_option(argv[i]))
			n_files++;
		else if (is_help(argv[i]))
			return print_help();
		else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0)
			quiet = true;
		else if (strcmp(argv[i], "--") == 0)
			end_of_options = i;
		else
			return usage_error("unknown option", argv[i]);
	}
	n_files += argc - end_of_options - (end_of_options < argc);
	if (n_files == 0)
		return usage_error("check needs at least one FILE", NULL);
	raise_open_file_limit();
	for (int i = 1; i < argc; i++) {
		int file_status;

		if (i == end_of_options || (i < end_of_options && is_option(argv[i])))
			continue;
		file_status = check_file(argv[i], quiet);
		if (file_status == EXIT_INVALID || status == EXIT_VALID)
			status = file_status;
	}
	return status;
}

int cmd_policy(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("missing command", NULL);
	if (is_help(argv[1]))
		return print_help();
	if (strcmp(argv[1], "check") == 0)
		return cmd_policy_check(argc - 1, argv + 1);
	return usage_error("unknown command", argv[1]);
}
