// SPDX-License-Identifier: GPL-2.0
/*
 * Attribute changes that only the inode hooks see: utimes (chmod, chown and
 * truncate have path hooks) and extended attributes. These hooks carry no
 * mount, see guess_mount().
 */
#include "decision.bpf.h"

#define ATTR_MODE  (1 << 0)
#define ATTR_UID   (1 << 1)
#define ATTR_GID   (1 << 2)
#define ATTR_SIZE  (1 << 3)
#define ATTR_ATIME (1 << 4)
#define ATTR_MTIME (1 << 5)

static __always_inline int decide_inode(__u16 op, struct dentry *dentry)
{
	struct write_request request = {
	    .op = op,
	    .path = {.dentry = dentry, .mnt = guess_mount(dentry)},
	};

	return decide(&request);
}

/*
 * Set by the loader where path_chown cannot be attached (before 6.1, the
 * verifier refuses hooks that take a struct, kuid_t, by value): then this
 * hook judges owner changes too. Only chown(2) changes an owner.
 */
const volatile bool setattr_judges_owner = false;

/*
 * Only a change of times alone is utimes: the kernel's own time updates on
 * truncate and write come with ATTR_SIZE or the privilege-dropping bits, and
 * the path hooks have already judged chmod, chown and truncate.
 */
static __always_inline int decide_setattr(struct dentry *dentry, struct iattr *attr)
{
	unsigned int valid = BPF_CORE_READ(attr, ia_valid);
	bool owner = setattr_judges_owner && (valid & (ATTR_UID | ATTR_GID));
	bool times_alone = (valid & (ATTR_ATIME | ATTR_MTIME)) &&
			   !(valid & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_SIZE));

	if (!owner && !times_alone)
		return 0;
	return decide_inode(CGWARD_OP_SETATTR, dentry);
}

/* Up to 6.1 the hook is (dentry, attr); the loader keeps the one this kernel has. */
SEC("lsm/inode_setattr")
int BPF_PROG(inode_setattr, struct dentry *dentry, struct iattr *attr, int ret)
{
	if (ret)
		return ret;
	return decide_setattr(dentry, attr);
}

/* From 6.2 the hook is (idmap or user namespace, dentry, attr). */
SEC("lsm/inode_setattr")
int BPF_PROG(inode_setattr_idmapped, void *idmap, struct dentry *dentry, struct iattr *attr,
	     int ret)
{
	if (ret)
		return ret;
	return decide_setattr(dentry, attr);
}

SEC("lsm/inode_setxattr")
int BPF_PROG(inode_setxattr, void *idmap, struct dentry *dentry, const char *name,
	     const void *value, size_t size, int flags, int ret)
{
	if (ret)
		return ret;
	return decide_inode(CGWARD_OP_SETXATTR, dentry);
}

SEC("lsm/inode_removexattr")
int BPF_PROG(inode_removexattr, void *idmap, struct dentry *dentry, const char *name, int ret)
{
	if (ret)
		return ret;
	return decide_inode(CGWARD_OP_REMOVEXATTR, dentry);
}

/*
 * Before 5.12 the xattr hooks have no leading user namespace; declaring
 * one is refused (EACCES: the program would read past the arguments).
 */
SEC("lsm/inode_setxattr")
int BPF_PROG(inode_setxattr_unmapped, struct dentry *dentry, const char *name, const void *value,
	     size_t size, int flags, int ret)
{
	if (ret)
		return ret;
	return decide_inode(CGWARD_OP_SETXATTR, dentry);
}

SEC("lsm/inode_removexattr")
int BPF_PROG(inode_removexattr_unmapped, struct dentry *dentry, const char *name, int ret)
{
	if (ret)
		return ret;
	return decide_inode(CGWARD_OP_REMOVEXATTR, dentry);
}

/*
 * From 6.2 POSIX ACLs are set and removed through these hooks rather than
 * the xattr ones; the loader keeps them where the kernel has them.
 */
SEC("lsm/inode_set_acl")
int BPF_PROG(inode_set_acl, void *idmap, struct dentry *dentry, const char *acl_name, void *kacl,
	     int ret)
{
	if (ret)
		return ret;
	return decide_inode(CGWARD_OP_SETXATTR, dentry);
}

SEC("lsm/inode_remove_acl")
int BPF_PROG(inode_remove_acl, void *idmap, struct dentry *dentry, const char *acl_name, int ret)
{
	if (ret)
		return ret;
	return decide_inode(CGWARD_OP_REMOVEXATTR, dentry);
}
