// SPDX-License-Identifier: GPL-2.0
/* Overlayfs' own work, told apart from the task's (bpf/overlay.bpf.h). */
#include "decision.bpf.h"

/*
 * Only overlayfs calls it, just before it installs the credential it
 * derived for a creation: its upper-layer changes are made with that one.
 */
SEC("lsm/dentry_create_files_as")
int BPF_PROG(dentry_create_files_as, struct dentry *dentry, int mode, const struct qstr *name,
	     const struct cred *old, struct cred *new, int ret)
{
	__u64 cgroup_id;

	if (!ret && current_policy(&cgroup_id))
		overlay_note_creation(dentry, new);
	return ret;
}
