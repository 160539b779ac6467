// SPDX-License-Identifier: GPL-2.0
/* cgward exec --learn: audit events made into proposed roots, from made-up events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "learn.h"
#include "cgward_abi.h"

static void note(struct learn *learn, __u16 op, __u16 reason, const char *path, const char *target)
{
	static struct cgward_event e;

	memset(&e, 0, offsetof(struct cgward_event, path));
	e.op = op;
	e.reason = reason;
	e.verdict = CGWARD_VERDICT_AUDIT;
	e.path_len = (__u16)strlen(path);
	memcpy(e.path, path, e.path_len);
	if (target) {
		e.target_len = (__u16)strlen(target);
		memcpy(e.path + e.path_len, target, e.target_len);
	}
	learn_note(learn, &e, offsetof(struct cgward_event, path) + e.path_len + e.target_len);
}

static char *report(struct learn *learn, const struct root_spec *roots, size_t n, __u64 lost)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	learn_report(learn, roots, n, lost, out);
	fclose(out);
	return text;
}

static void test_proposes_collapsed_roots_and_leaves_secrets_out(void **state)
{
	struct root_spec roots[2] = {{.path = "/home/u/ws", .access = CGWARD_ACCESS_WRITE},
				     {.path = "/usr", .access = CGWARD_ACCESS_READ}};
	struct learn learn;
	char *text;

	(void)state;
	setenv("HOME", "/home/u/", 1);
	learn_init(&learn);
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_OUTSIDE_ROOTS, "/data/proj/a.txt", NULL);
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_OUTSIDE_ROOTS, "/data/proj/b.txt", NULL);
	note(&learn, CGWARD_OP_READDIR, CGWARD_REASON_OUTSIDE_ROOTS, "/srv/data", NULL);
	note(&learn, CGWARD_OP_EXEC, CGWARD_REASON_OUTSIDE_ROOTS, "/opt/t/1/f", NULL);
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_OUTSIDE_ROOTS, "/opt/t/2/f", NULL);
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_OUTSIDE_ROOTS, "/opt/t/3/f", NULL);
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_OUTSIDE_ROOTS, "/home/u/.gitconfig", NULL);
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_OUTSIDE_ROOTS, "/home/u/.ssh/id_ed25519",
	     NULL);
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_OUTSIDE_ROOTS, "/srv/app/.env", NULL);
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_HIDDEN, "/home/u/secret/x", NULL);
	note(&learn, CGWARD_OP_CREATE, CGWARD_REASON_OUTSIDE_ROOTS, "/srv/out/x", NULL);
	note(&learn, CGWARD_OP_RENAME, CGWARD_REASON_OUTSIDE_ROOTS, "/srv/out/x", "/srv/out/y");
	note(&learn, CGWARD_OP_OPEN_READ, CGWARD_REASON_OUTSIDE_ROOTS, "/srv/out/y", NULL);
	note(&learn, CGWARD_OP_OPEN_WRITE, CGWARD_REASON_OUTSIDE_ROOTS, "/home/u/.bash_history",
	     NULL);
	note(&learn, CGWARD_OP_CONNECT, CGWARD_REASON_NETWORK, "", NULL);
	text = report(&learn, roots, 2, 3);
	assert_string_equal(
	    text,
	    "cgward: --learn: the roots that would have let the run go with no deny:\n"
	    "  --root /home/u/ws --root /srv/out --read /usr --read /data/proj"
	    " --read /home/u/.gitconfig --read /opt/t --read /srv/data --read-system default\n"
	    "  as a policy rule:\n"
	    "    write_roots: [/home/u/ws, /srv/out]\n"
	    "    read_roots: [/usr, /data/proj, /home/u/.gitconfig, /opt/t, /srv/data]\n"
	    "    read_system: default\n"
	    "  left out, secrets it read or wrote (hide them: --hide):\n"
	    "    secrets: [/home/u/.ssh/id_ed25519, /srv/app/.env]\n"
	    "  left out, writes no root should cover (in /, a top-level directory or the "
	    "home):\n"
	    "    writes: [/home/u/.bash_history]\n"
	    "  left out: 2 other operations audited (see the events)\n"
	    "  incomplete: 3 events were lost; run it again\n");
	free(text);
	learn_free(&learn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_proposes_collapsed_roots_and_leaves_secrets_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
