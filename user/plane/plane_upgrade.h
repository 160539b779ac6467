/* SPDX-License-Identifier: GPL-2.0 */
/* The plane's upgrade in place, private to user/plane/ (plane.c's load_once). */
#ifndef CGWARD_PLANE_UPGRADE_H
#define CGWARD_PLANE_UPGRADE_H

#include <stddef.h>

/*
 * Replaces the programs of a plane pinned by another build, of an ABI this
 * one upgrades (CGWARD_ABI_UPGRADES_FROM), by this build's. Its maps of
 * this build's layout are kept; those that changed are migrated (each
 * binding, root, tag, counter and exec's ring carries over either way), so
 * the cgward execs of the other build go on with them.
 *
 * A migration: the other build's cgward processes are frozen out of the old
 * maps (plan_migration); the new programs are loaded on staged maps and the
 * entries copied; cgroup_mkdir is replaced first and the entries copied
 * again, so that every cgroup made from then on lands in both maps; then
 * the other programs are replaced (the staged maps complete before any of
 * them reads them); once the old programs are released, a last copy takes
 * what they wrote meanwhile; then the staged maps take the old maps' pins.
 *
 * A load that fails (a map this build cannot migrate) leaves the plane as
 * it was; one that stops half way leaves each hook with one build's program
 * or the other's, each on its own maps, and plane_info the other's, so the
 * next cgward finishes it (reusing the staged maps).
 *
 * links_attached counts the links it attached and pinned.
 */
int plane_upgrade_in_place(const char *dir, int *links_attached, char *err, size_t errlen);

#endif
