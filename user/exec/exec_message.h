/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exec socket's protocol, between cgward exec run by an ordinary user
 * and the agent that confines its command (user/agent/exec_socket.c).
 * SOCK_SEQPACKET: one message is one JSON object and the descriptors that
 * go with it (SCM_RIGHTS).
 *
 * Request: {"argv0", "flags", "dropped_caps", "memory_mib", "pids_max",
 * "cpu_milli", "fds": [kind...], "paths": [...]} ("dropped_caps": struct
 * cgward_cgroup_policy's, as a signed 64-bit integer; without it, the
 * default set; the limits as struct run_limits has them, 0 or absent: none)
 * with one descriptor per kind, in order: "pid" (the pidfd of the caller's
 * child, waiting at its gate) first, then "write", "ro" and "hide" (O_PATH
 * directories, --root and --ro; a file too for --hide: exec_message_root_kind),
 * "unix" and "dev" (O_PATH, --allow-unix and --allow-dev). paths[i] names descriptor i in messages
 * only. With --private-tmp or --spawn the agent starts the command (user/agent/exec_spawn.h): the
 * request adds "argv", "env", "umask" and "private_tmp" (a boolean; absent: true, as older cgward
 * sent it for --private-tmp only), and its descriptors begin "self" (a pidfd of the caller itself),
 * "cwd" (O_PATH), "stdin", "stdout", "stderr" and "exit", one end of a socket pair on which the
 * agent's supervisor sends {"op": "exit"} with "status", "exec_error" (execvp's
 * errno) or "error" (it never ran) once the command is over.
 * Reply: {"error"} or {"cgroup", "ring_size"} and the run's ring buffer. A --spawn the agent
 * cannot make the caller's (its seccomp filter, namespaces, LSM label or chroot would not carry
 * over) is answered {"error", "caller_starts": true}: the caller asks again for its own child. Then
 * the caller's {"op": "end"} once its command is over (or it was told to stop): the agent kills
 * what is left, removes the cgroup and answers
 * {"events_lost", "oom_killed", "limits": {"oom_kill", "pids_max",
 * "cpu_throttled", "throttled_usec", "usage_usec"}} (the run's counters,
 * read before its cgroup went; no "limits" for a run that ended unanswered). A caller whose agent
 * was restarted asks the new one on a new connection: {"op": "end", "cgroup"} (the grant's), same
 * answer, or {"error"} when no run of its uid has that cgroup.
 */
#ifndef CGWARD_EXEC_MESSAGE_H
#define CGWARD_EXEC_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>
#include <linux/types.h>

#define EXEC_MESSAGE_MAX     (128 * 1024)
#define EXEC_MESSAGE_MAX_FDS 253 /* the kernel's SCM_MAX_FD */

/* A root's kind in a request ("write", "ro", "hide") by its enum cgward_access; NULL for another.
 */
const char *exec_message_root_kind(__u32 access);

/* The enum cgward_access of a root's kind; 0 when kind names no root. */
__u32 exec_message_root_access(const char *kind);

/* A NULL-terminated vector (argv, env) as a JSON array of strings (UTF-8, as JSON wants). */
json_t *exec_message_strings(char *const *v);

/* A JSON array of strings as a NULL-terminated vector; NULL when it is not one. */
char **exec_message_read_strings(json_t *array, bool allow_empty);

/* Frees exec_message_read_strings' vector. */
void exec_message_free_strings(char **v);

int exec_message_send(int fd, const char *json, size_t len, const int *fds, size_t n_fds);

/*
 * Receives one message, its JSON NUL-terminated in buf; its descriptors
 * (close-on-exec) in fds. Returns its length, 0 at end of file, or negative
 * errno: -EMSGSIZE when it or its descriptors did not fit (none are kept).
 */
ssize_t exec_message_recv(int fd, char *buf, size_t size, int *fds, size_t max_fds, size_t *n_fds,
			  int flags);

#endif
