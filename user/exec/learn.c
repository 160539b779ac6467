// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"
#include "cgward_abi.h"
#include "grow_array.h"

/* Where secrets live beneath the home directory, and the names of secret files anywhere. */
static const char *const home_secrets[] = {
    ".ssh",    ".aws",	 ".gnupg",	     ".config/gcloud",	".azure",  ".kube",
    ".docker", ".netrc", ".git-credentials", ".password-store", ".pgpass",
};
static const char *const secret_names[] = {".env", "*.env", "id_*", "*.pem", "*.key"};

/* Collapsing: this many entries in one directory propose the directory instead. */
#define LEARN_COLLAPSE 3

void learn_init(struct learn *learn)
{
	const char *home = getenv("HOME");
	size_t len;

	*learn = (struct learn){};
	snprintf(learn->home, sizeof(learn->home), "%s", home && home[0] == '/' ? home : "");
	len = strlen(learn->home);
	while (len > 1 && learn->home[len - 1] == '/')
		learn->home[--len] = '\0';
}

static bool is_secret(const struct learn *learn, const char *path)
{
	const char *name = strrchr(path, '/') + 1;
	char dir[PATH_MAX + 32];

	for (size_t i = 0; learn->home[0] && i < sizeof(home_secrets) / sizeof(home_secrets[0]);
	     i++) {
		snprintf(dir, sizeof(dir), "%s/%s", learn->home, home_secrets[i]);
		if (path_within(path, dir))
			return true;
	}
	for (size_t i = 0; i < sizeof(secret_names) / sizeof(secret_names[0]); i++) {
		if (fnmatch(secret_names[i], name, 0) == 0)
			return true;
	}
	return false;
}

/* /, a top-level directory or the home: a root there would hold far more than a run needs. */
static bool is_shallow(const struct learn *learn, const char *dir)
{
	const char *second = strchr(dir + 1, '/');

	return !dir[1] || !second || strcmp(dir, learn->home) == 0;
}

static void add(char ***list, size_t *n, size_t *cap, const char *path)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*list)[i], path) == 0)
			return;
	}
	if (grow_array((void **)list, cap, *n + 1, sizeof(**list)) == 0 &&
	    ((*list)[*n] = strdup(path)))
		(*n)++;
}

/* One path an operation named: what a read needs, or the directory a write is in. */
static void note_path(struct learn *learn, __u16 op, const char *named, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX];
	bool read = op == CGWARD_OP_OPEN_READ || op == CGWARD_OP_READDIR || op == CGWARD_OP_EXEC;

	if (!len || len >= sizeof(path) || named[0] != '/')
		return;
	memcpy(path, named, len);
	path[len] = '\0';
	if (is_secret(learn, path)) {
		add(&learn->secrets, &learn->n_secrets, &learn->cap_secrets, path);
		return;
	}
	memcpy(dir, path, len + 1);
	if (op != CGWARD_OP_READDIR)
		path_parent(dir);
	if (read)
		add(&learn->reads, &learn->n_reads, &learn->cap_reads,
		    is_shallow(learn, dir) && op != CGWARD_OP_READDIR ? path : dir);
	else if (is_shallow(learn, dir))
		add(&learn->shallow_writes, &learn->n_shallow_writes, &learn->cap_shallow_writes,
		    path);
	else
		add(&learn->writes, &learn->n_writes, &learn->cap_writes, dir);
}

void learn_note(void *arg, const void *record, size_t size)
{
	const struct cgward_event *e = record;
	struct learn *learn = arg;
	size_t header = offsetof(struct cgward_event, path);

	if (size < header || size - header < (size_t)e->path_len + e->target_len)
		return;
	/*
	 * Only a file operation outside the roots: a hidden path and a
	 * read-only one stay so, and a path cut short or unplaced names no root.
	 */
	if ((e->op >= CGWARD_OP_MOUNT && e->op != CGWARD_OP_OPEN_READ &&
	     e->op != CGWARD_OP_READDIR && e->op != CGWARD_OP_EXEC) ||
	    e->reason != CGWARD_REASON_OUTSIDE_ROOTS ||
	    (e->flags & (CGWARD_EVENT_PATH_TRUNCATED | CGWARD_EVENT_TARGET_TRUNCATED |
			 CGWARD_EVENT_PATH_FROM_FS_ROOT | CGWARD_EVENT_TARGET_FROM_FS_ROOT))) {
		learn->others++;
		return;
	}
	note_path(learn, e->op, e->path, e->path_len);
	if (e->target_len)
		note_path(learn, e->op, e->path + e->path_len, e->target_len);
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Drops the entries of list within one of within[0..n_within); within NULL:
 * within an entry of list kept before it (sorted, a directory comes first).
 */
static void drop_within(char **list, size_t *n, char *const *within, size_t n_within)
{
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++) {
		char *const *by = within ? within : list;
		size_t n_by = within ? n_within : kept;
		bool covered = false;

		for (size_t j = 0; j < n_by && !covered; j++)
			covered = path_within(list[i], by[j]);
		if (covered)
			free(list[i]);
		else
			list[kept++] = list[i];
	}
	*n = kept;
}

/*
 * Sorted, each once, none within another; where LEARN_COLLAPSE entries share
 * a directory that is not shallow, the directory instead.
 */
static void collapse(const struct learn *learn, char ***list, size_t *n, size_t *cap)
{
	char dir[PATH_MAX];
	size_t run;

	for (bool changed = true; changed;) {
		changed = false;
		qsort(*list, *n, sizeof(**list), compare_paths);
		drop_within(*list, n, NULL, 0);
		for (size_t i = 0; i < *n && !changed; i += run) {
			snprintf(dir, sizeof(dir), "%s", (*list)[i]);
			path_parent(dir);
			for (run = 1; i + run < *n && path_within((*list)[i + run], dir); run++)
				;
			if (run >= LEARN_COLLAPSE && !is_shallow(learn, dir) &&
			    !is_secret(learn, dir)) {
				add(list, n, cap, dir);
				changed = true;
			}
		}
	}
}

static void print_list(FILE *out, const char *key, char *const *paths, size_t n)
{
	fprintf(out, "    %s: [", key);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? ", " : "", paths[i]);
	fprintf(out, "]\n");
}

static void print_options(FILE *out, const char *option, char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %s %s", option, paths[i]);
}

/* The run's own roots of access (borrowed), in a new array with room for extra more; or NULL. */
static char **given_roots(const struct root_spec *roots, size_t n_roots, __u32 access, size_t extra,
			  size_t *n)
{
	char **given = calloc(n_roots + extra + 1, sizeof(*given));

	*n = 0;
	for (size_t i = 0; given && i < n_roots; i++) {
		if (roots[i].access == access)
			given[(*n)++] = (char *)roots[i].path;
	}
	return given;
}

/* Appends the learnt paths (borrowed) to the run's own. */
static void append(char **all, size_t *n, char *const *learnt, size_t n_learnt)
{
	memcpy(all + *n, learnt, n_learnt * sizeof(*all));
	*n += n_learnt;
}

void learn_report(struct learn *learn, const struct root_spec *roots, size_t n_roots, __u64 lost,
		  FILE *out)
{
	size_t n_writes, n_reads;
	char **writes, **reads;

	collapse(learn, &learn->writes, &learn->n_writes, &learn->cap_writes);
	collapse(learn, &learn->reads, &learn->n_reads, &learn->cap_reads);
	writes = given_roots(roots, n_roots, CGWARD_ACCESS_WRITE, learn->n_writes, &n_writes);
	reads = given_roots(roots, n_roots, CGWARD_ACCESS_READ, learn->n_reads, &n_reads);
	if (writes && reads) {
		drop_within(learn->writes, &learn->n_writes, writes, n_writes);
		drop_within(learn->reads, &learn->n_reads, learn->writes, learn->n_writes);
		append(writes, &n_writes, learn->writes, learn->n_writes);
		append(reads, &n_reads, learn->reads, learn->n_reads);
		fprintf(out, "cgward: --learn: the roots that would have let the run go with no "
			     "deny:\n ");
		print_options(out, "--root", writes, n_writes);
		print_options(out, "--read", reads, n_reads);
		fprintf(out, " --read-system default\n  as a policy rule:\n");
		print_list(out, "write_roots", writes, n_writes);
		print_list(out, "read_roots", reads, n_reads);
		fprintf(out, "    read_system: default\n");
	} else {
		fprintf(out, "cgward: --learn: out of memory\n");
	}
	free(writes);
	free(reads);
	if (learn->n_secrets) {
		fprintf(out, "  left out, secrets it read or wrote (hide them: --hide):\n");
		print_list(out, "secrets", learn->secrets, learn->n_secrets);
	}
	if (learn->n_shallow_writes) {
		fprintf(out, "  left out, writes no root should cover (in /, a top-level directory "
			     "or the home):\n");
		print_list(out, "writes", learn->shallow_writes, learn->n_shallow_writes);
	}
	if (learn->others)
		fprintf(out, "  left out: %lu other operations audited (see the events)\n",
			learn->others);
	if (lost)
		fprintf(out, "  incomplete: %llu events were lost; run it again\n",
			(unsigned long long)lost);
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void learn_free(struct learn *learn)
{
	free_list(learn->reads, learn->n_reads);
	free_list(learn->writes, learn->n_writes);
	free_list(learn->secrets, learn->n_secrets);
	free_list(learn->shallow_writes, learn->n_shallow_writes);
}
