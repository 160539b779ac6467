/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgward exec --serve: the runs a client (the Python client's Sandbox) asks
 * for, each made as cgward exec makes it for an ordinary user, in a child
 * forked for it rather than a cgward executed for it. The client is the
 * caller: it connects to the agent and passes that connection with its own
 * pidfd, so the agent judges and places each run by the client as it is
 * then, not by this process as it was when it started.
 *
 * Standard input is a SOCK_SEQPACKET socket from the client. At start, this
 * process sends {"agent_socket": PATH}. Each request is {"argv", "env",
 * "umask"} with seven descriptors: the client's connection to the agent,
 * its pidfd, the command's cwd (O_PATH), stdin, stdout and stderr (cgward's
 * own messages too, as cgward exec's), and a stream socket that gets the
 * run's events as cgward exec --events writes them, then one last line,
 * {"exit": STATUS} (cgward exec's exit status) or {"caller_starts": true}
 * (the agent would not start the command for this client: nothing ran, it
 * runs cgward exec itself). Its hang-up (shutdown) ends the run, as SIGTERM
 * ends cgward exec's. End of file on standard input ends the serving; the
 * runs under way go on.
 */
#ifndef CGWARD_EXEC_SERVE_H
#define CGWARD_EXEC_SERVE_H

#include "exec_run.h"

/* Serves req's runs (its argv unset) until the client hangs up; cgward exec's exit status. */
int exec_serve(const struct exec_request *req);

#endif
