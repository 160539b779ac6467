/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CGWARD_DOCTOR_H
#define CGWARD_DOCTOR_H

/* cgward doctor: can this kernel enforce? argv[0] is "doctor". */
int cmd_doctor(int argc, char **argv);

#endif
