// SPDX-License-Identifier: GPL-2.0
/*
 * The policy file's YAML: libyaml's events made into a tree whose nodes keep
 * their positions, and the checks policy.c makes of each node.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "grow_array.h"
#include "policy_yaml.h"

/* Our schema nests five levels; anything deeper is a mistake, and recursion must stay bounded. */
#define YAML_MAX_DEPTH 32

void node_free(struct node *node)
{
	if (!node)
		return;
	for (size_t i = 0; i < node->n_children; i++)
		node_free(node->children[i]);
	free(node->children);
	free(node->value);
	free(node);
}

static void diag_yaml_error(struct loader *ld, const yaml_parser_t *parser, const char *buf)
{
	int line = parser->problem_mark.line + 1, column = parser->problem_mark.column + 1;
	const char *problem = parser->problem ? parser->problem : "unknown error";

	if (parser->error == YAML_MEMORY_ERROR) {
		ld->error = -ENOMEM;
		return;
	}
	if (parser->error == YAML_READER_ERROR) {
		/* The reader reports a byte offset, not a mark. */
		line = column = 1;
		for (size_t i = 0; i < parser->problem_offset; i++) {
			column = buf[i] == '\n' ? 1 : column + 1;
			line += buf[i] == '\n';
		}
	}
	if (parser->context)
		diag_at(ld, line, column, "YAML syntax error: %s (%s started at %zu:%zu)", problem,
			parser->context, parser->context_mark.line + 1,
			parser->context_mark.column + 1);
	else
		diag_at(ld, line, column, "YAML syntax error: %s", problem);
}

/* The next event, or -EINVAL after reporting the syntax error. */
static int next_event(struct loader *ld, yaml_parser_t *parser, yaml_event_t *event,
		      const char *buf)
{
	if (yaml_parser_parse(parser, event))
		return 0;
	diag_yaml_error(ld, parser, buf);
	return ld->error ? ld->error : -EINVAL;
}

static void refuse_anchor_and_tag(struct loader *ld, const struct node *node,
				  const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor)
		diag(ld, node, "anchors are not supported ('&%.64s')", (const char *)anchor);
	if (tag)
		diag(ld, node, "tags are not supported ('%.64s')", (const char *)tag);
}

static int parse_node(struct loader *ld, yaml_parser_t *parser, yaml_event_t *start,
		      const char *buf, int depth, struct node **out);

static int add_child(struct node *parent, struct node *child)
{
	if (grow_array((void **)&parent->children, &parent->cap_children, parent->n_children + 1,
		       sizeof(*parent->children))) {
		node_free(child);
		return -ENOMEM;
	}
	parent->children[parent->n_children++] = child;
	return 0;
}

/* Reads the children of a sequence or mapping up to its end event. */
static int parse_children(struct loader *ld, yaml_parser_t *parser, struct node *parent,
			  yaml_event_type_t end, const char *buf, int depth)
{
	yaml_event_t event;
	struct node *child;
	int ret;

	for (;;) {
		ret = next_event(ld, parser, &event, buf);
		if (ret)
			return ret;
		if (event.type == end) {
			yaml_event_delete(&event);
			return 0;
		}
		ret = parse_node(ld, parser, &event, buf, depth + 1, &child);
		if (ret)
			return ret;
		ret = add_child(parent, child);
		if (ret)
			return ret;
	}
}

static void scalar_from_event(struct node *node, const yaml_event_t *event)
{
	node->kind = NODE_SCALAR;
	node->value = (char *)event->data.scalar.value;
	node->value_len = event->data.scalar.length;
	node->plain = event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* Builds the node that starts with event (which it consumes). */
static int parse_node(struct loader *ld, yaml_parser_t *parser, yaml_event_t *event,
		      const char *buf, int depth, struct node **out)
{
	struct node *node = calloc(1, sizeof(*node));
	int ret = 0;

	*out = NULL;
	if (!node) {
		yaml_event_delete(event);
		return -ENOMEM;
	}
	node->line = event->start_mark.line + 1;
	node->column = event->start_mark.column + 1;
	if (depth > YAML_MAX_DEPTH) {
		diag(ld, node, "nesting deeper than %d levels", YAML_MAX_DEPTH);
		ret = -EINVAL;
	} else if (event->type == YAML_SCALAR_EVENT) {
		refuse_anchor_and_tag(ld, node, event->data.scalar.anchor, event->data.scalar.tag);
		scalar_from_event(node, event);
		event->data.scalar.value = NULL; /* the node owns it now */
	} else if (event->type == YAML_SEQUENCE_START_EVENT) {
		node->kind = NODE_SEQUENCE;
		refuse_anchor_and_tag(ld, node, event->data.sequence_start.anchor,
				      event->data.sequence_start.tag);
		ret = parse_children(ld, parser, node, YAML_SEQUENCE_END_EVENT, buf, depth);
	} else if (event->type == YAML_MAPPING_START_EVENT) {
		node->kind = NODE_MAPPING;
		refuse_anchor_and_tag(ld, node, event->data.mapping_start.anchor,
				      event->data.mapping_start.tag);
		ret = parse_children(ld, parser, node, YAML_MAPPING_END_EVENT, buf, depth);
	} else {
		node->kind = NODE_ALIAS;
		diag(ld, node, "aliases are not supported");
	}
	yaml_event_delete(event);
	if (ret) {
		node_free(node);
		return ret;
	}
	*out = node;
	return 0;
}

/* Reads one event and drops it: its type, and where it starts when mark is not NULL. */
static int skip_event(struct loader *ld, yaml_parser_t *parser, const char *buf,
		      yaml_event_type_t *type, yaml_mark_t *mark)
{
	yaml_event_t event;
	int ret = next_event(ld, parser, &event, buf);

	if (ret)
		return ret;
	*type = event.type;
	if (mark)
		*mark = event.start_mark;
	yaml_event_delete(&event);
	return 0;
}

/* Reads the single document of the stream; *root stays NULL when the file has none. */
static int parse_stream(struct loader *ld, yaml_parser_t *parser, const char *buf,
			struct node **root)
{
	yaml_event_type_t type;
	yaml_event_t event;
	yaml_mark_t mark;
	int ret;

	*root = NULL;
	ret = skip_event(ld, parser, buf, &type, NULL); /* stream start */
	/* The document's start, or the end of an empty stream. */
	if (ret == 0)
		ret = skip_event(ld, parser, buf, &type, NULL);
	if (ret || type == YAML_STREAM_END_EVENT)
		return ret;
	ret = next_event(ld, parser, &event, buf);
	if (ret == 0)
		ret = parse_node(ld, parser, &event, buf, 0, root);
	if (ret == 0)
		ret = skip_event(ld, parser, buf, &type, NULL); /* document end */
	if (ret == 0)
		ret = skip_event(ld, parser, buf, &type, &mark);
	if (ret == 0 && type == YAML_DOCUMENT_START_EVENT)
		diag_at(ld, mark.line + 1, mark.column + 1, "multiple documents are not supported");
	return ret;
}

bool is_plain_null(const struct node *node)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

	if (!node->plain)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(nulls); i++) {
		if (strcmp(node->value, nulls[i]) == 0)
			return true;
	}
	return false;
}

const char *kind_name(const struct node *node)
{
	switch (node->kind) {
	case NODE_SCALAR:
		return is_plain_null(node) ? "null" : "a string";
	case NODE_SEQUENCE:
		return "a list";
	case NODE_MAPPING:
		return "a mapping";
	default:
		return "an alias";
	}
}

bool expect_kind(struct loader *ld, const struct node *node, enum node_kind kind, const char *what)
{
	static const char *const wanted[] = {
	    [NODE_SCALAR] = "a string",
	    [NODE_SEQUENCE] = "a list",
	    [NODE_MAPPING] = "a mapping",
	};

	if (node->kind == kind)
		return true;
	if (node->kind != NODE_ALIAS)
		diag(ld, node, "%s must be %s, not %s", what, wanted[kind], kind_name(node));
	return false;
}

const char *string_value(struct loader *ld, const struct node *node, const char *what)
{
	if (!expect_kind(ld, node, NODE_SCALAR, what))
		return NULL;
	if (is_plain_null(node)) {
		diag(ld, node, "%s must be a string, not null", what);
		return NULL;
	}
	if (strlen(node->value) != node->value_len) {
		diag(ld, node, "%s contains a NUL byte", what);
		return NULL;
	}
	return node->value;
}

bool bool_value(struct loader *ld, const struct node *node, const char *what, bool *out)
{
	if (node->kind != NODE_SCALAR || is_plain_null(node)) {
		if (node->kind != NODE_ALIAS)
			diag(ld, node, "%s must be true or false, not %s", what, kind_name(node));
		return false;
	}
	if (node->plain && strcmp(node->value, "true") == 0) {
		*out = true;
		return true;
	}
	if (node->plain && strcmp(node->value, "false") == 0) {
		*out = false;
		return true;
	}
	if (node->plain)
		diag(ld, node, "%s must be true or false, not '%.64s'", what, node->value);
	else
		diag(ld, node, "%s must be true or false, not the quoted string \"%.64s\"", what,
		     node->value);
	return false;
}

bool expect_nonempty_list(struct loader *ld, const struct node *node, const char *what)
{
	if (!expect_kind(ld, node, NODE_SEQUENCE, what))
		return false;
	if (node->n_children == 0) {
		diag(ld, node, "%s must not be empty", what);
		return false;
	}
	return true;
}

bool map_fields(struct loader *ld, const struct node *map, const char *what,
		const char *const keys[], size_t n_keys, const struct node *values[])
{
	char expected[256] = "";

	for (size_t k = 0; k < n_keys; k++) {
		values[k] = NULL;
		snprintf(expected + strlen(expected), sizeof(expected) - strlen(expected), "%s%s",
			 k ? ", " : "", keys[k]);
	}
	if (!expect_kind(ld, map, NODE_MAPPING, what))
		return false;
	for (size_t i = 0; i + 1 < map->n_children; i += 2) {
		const struct node *key = map->children[i];
		size_t k;

		if (!expect_kind(ld, key, NODE_SCALAR, "a key"))
			continue;
		for (k = 0; k < n_keys; k++) {
			if (key->value_len == strlen(keys[k]) && strcmp(key->value, keys[k]) == 0)
				break;
		}
		if (k == n_keys)
			diag(ld, key, "unknown key '%.64s' in %s (expected %s)", key->value, what,
			     expected);
		else if (values[k])
			diag(ld, key, "duplicate key '%s' in %s", keys[k], what);
		else
			values[k] = map->children[i + 1];
	}
	return true;
}

void require(struct loader *ld, const struct node *map, const struct node *value, const char *key,
	     const char *what)
{
	if (!value)
		diag(ld, map, "%s is missing required key '%s'", what, key);
}

int parse_yaml_tree(struct loader *ld, const char *buf, size_t len, struct node **root)
{
	yaml_parser_t parser;
	int ret;

	*root = NULL;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	ret = parse_stream(ld, &parser, buf, root);
	yaml_parser_delete(&parser);
	return ret;
}
