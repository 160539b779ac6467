/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy file's YAML, private to user/policy/: the document as a tree of
 * nodes with their positions, and the checks of a node's kind and value that
 * report what is wrong where (policy.c's diagnostics).
 */
#ifndef CGWARD_POLICY_YAML_H
#define CGWARD_POLICY_YAML_H

#include <stdbool.h>
#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The YAML document as a tree, built from libyaml's events so that every
 * node keeps its position and anchors, aliases and tags can be refused.
 */
enum node_kind {
	NODE_SCALAR,
	NODE_SEQUENCE,
	NODE_MAPPING,
	NODE_ALIAS, /* already reported; checks skip it silently */
};

struct node {
	enum node_kind kind;
	int line, column;
	char *value; /* scalar bytes, NUL-terminated; may hold a NUL of its own */
	size_t value_len;
	bool plain;		/* an unquoted scalar: only these can be booleans or null */
	struct node **children; /* sequence items; mapping keys and values, alternating */
	size_t n_children, cap_children;
};

struct policy_diags;

/* A policy file being loaded (policy.c): its diagnostics, and the first allocation error. */
struct loader {
	struct policy_diags *diags;
	int error; /* -ENOMEM once an allocation failed */
};

/*
 * The diagnostic at line:column, kept by the loader (policy.c); -ENOMEM in
 * ld->error when it cannot be.
 */
void diag_at(struct loader *ld, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define diag(ld, node, ...) diag_at(ld, (node)->line, (node)->column, __VA_ARGS__)

/*
 * The tree of buf's single document, its syntax errors reported; *root stays
 * NULL when the file has none. 0, -EINVAL (reported) or -ENOMEM.
 */
int parse_yaml_tree(struct loader *ld, const char *buf, size_t len, struct node **root);

/* The node and all below it. */
void node_free(struct node *node);

/* An unquoted empty scalar, ~ or null: YAML's null. */
bool is_plain_null(const struct node *node);

/* What the node is, for a message: "a string", "null", "a list"... */
const char *kind_name(const struct node *node);

/* Reports a node of the wrong kind; aliases were reported when parsed. */
bool expect_kind(struct loader *ld, const struct node *node, enum node_kind kind, const char *what);

/* The node's string value, or NULL after reporting why it is not a string. */
const char *string_value(struct loader *ld, const struct node *node, const char *what);

/* Only the plain scalars true and false: "yes", 1 and "true" are mistakes here. */
bool bool_value(struct loader *ld, const struct node *node, const char *what, bool *out);

/* A list with an item, or false after reporting what it is. */
bool expect_nonempty_list(struct loader *ld, const struct node *node, const char *what);

/*
 * Sorts a mapping's values into values[] by key, in the order of keys[];
 * reports keys that are unknown, repeated or not strings. False when the
 * node is not a mapping.
 */
bool map_fields(struct loader *ld, const struct node *map, const char *what,
		const char *const keys[], size_t n_keys, const struct node *values[]);

/* Reports the key missing from map when value (its value) is NULL. */
void require(struct loader *ld, const struct node *map, const struct node *value, const char *key,
	     const char *what);

#endif
