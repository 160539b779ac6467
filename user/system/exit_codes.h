/* SPDX-License-Identifier: GPL-2.0 */
/* Exit statuses of cgward's commands, as documented in their --help. */
#ifndef CGWARD_EXIT_CODES_H
#define CGWARD_EXIT_CODES_H

enum cgward_exit {
	EXIT_RUNTIME_ERROR = 1,	 /* an error while running (I/O, kernel) */
	EXIT_USAGE = 2,		 /* invalid options, roots or policy: nothing was done */
	EXIT_SETUP_FAILED = 125, /* enforcement could not be set up, or torn down */
	EXIT_CMD_CANNOT_EXECUTE = 126,
	EXIT_CMD_NOT_FOUND = 127,
};

#endif
