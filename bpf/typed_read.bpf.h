/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fields of a request's dentries, loaded directly where the dentry is typed
 * (BTF: a hook's argument, or loaded from one): a load, where
 * BPF_CORE_READ() is a helper call. typed must be a constant, so that the
 * compiler keeps one of the two: the verifier refuses a direct load from an
 * untyped pointer (the unix socket hooks' dentries).
 */
#ifndef CGWARD_TYPED_READ_BPF_H
#define CGWARD_TYPED_READ_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/* The super block of dentry, NULL for no dentry. */
static __always_inline struct super_block *dentry_sb(struct dentry *dentry, const bool typed)
{
	if (!dentry)
		return NULL;
	return typed ? dentry->d_sb : BPF_CORE_READ(dentry, d_sb);
}

/* The file system's magic number, 0 for no super block; sb typed as its dentry was. */
static __always_inline unsigned long sb_magic(struct super_block *sb, const bool typed)
{
	if (!sb)
		return 0;
	return typed ? sb->s_magic : BPF_CORE_READ(sb, s_magic);
}

#endif
