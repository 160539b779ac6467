/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Devices and ioctls. A device node is a door to all that is behind it: a
 * disk's blocks (every file on it), memory, another file system through a
 * loop or device-mapper target. So where its node lives does not count: an
 * enforced task may create no device node, open no device for writing but
 * the harmless ones and those its policy allows (--allow-dev), and give a
 * device no ioctl but the few the VFS answers itself. ioctl(2) reaches past
 * the open mode too: root may send SCSI or NVMe write commands through a
 * descriptor opened read-only (CAP_SYS_RAWIO, CAP_SYS_ADMIN), change a file's
 * flags, freeze or shut down a file system, or push input into a terminal
 * (TIOCSTI).
 */
#ifndef CGWARD_DEVICES_BPF_H
#define CGWARD_DEVICES_BPF_H

#include "decision.bpf.h"

#define S_IFDIR 0040000
#define S_IFBLK 0060000

#define KERNEL_MKDEV(major, minor) (((major) << 20) | (minor))

/* _IOC() of asm-generic/ioctl.h, which x86 and arm64 use. */
#define IOC(dir, type, nr, size) (((dir) << 30) | ((size) << 16) | ((type) << 8) | (nr))
#define IOC_W			 1U
#define IOC_R			 2U

static __always_inline bool is_device_node(umode_t mode)
{
	mode &= S_IFMT;
	return mode == S_IFCHR || mode == S_IFBLK;
}

/*
 * Character devices that every program writes to and that change no file:
 * /dev/null, zero, full, random, urandom, tty, ptmx and the pty slaves.
 */
static __always_inline bool is_harmless_chardev(dev_t rdev)
{
	__u32 major = rdev >> 20;

	switch (rdev) {
	case KERNEL_MKDEV(1, 3):
	case KERNEL_MKDEV(1, 5):
	case KERNEL_MKDEV(1, 7):
	case KERNEL_MKDEV(1, 8):
	case KERNEL_MKDEV(1, 9):
	case KERNEL_MKDEV(5, 0):
	case KERNEL_MKDEV(5, 2):
		return true;
	}
	return major >= 136 && major <= 143;
}

/*
 * Terminals, whose ioctls are job control, stty and window sizes: legacy
 * ptys (2, 3), virtual consoles and serial ports (4), tty, console and
 * ptmx (5), pty slaves (136-143), ACM and USB serial (166, 188), low-density
 * serial ports (204) and hypervisor consoles (229). What injects input is
 * denied apart (injects_input).
 */
static __always_inline bool is_terminal(dev_t rdev)
{
	__u32 major = rdev >> 20;

	return (major >= 2 && major <= 5) || (major >= 136 && major <= 143) || major == 166 ||
	       major == 188 || major == 204 || major == 229;
}

/* An overlayfs whiteout: a 0:0 character device, which opens nothing. */
static __always_inline bool is_whiteout(umode_t mode, unsigned int dev)
{
	return (mode & S_IFMT) == S_IFCHR && dev == 0;
}

/* Whether the policy (an --allow-dev entry of its own) lets the device of this node be used. */
static __always_inline bool device_allowed_by(__u32 policy_id, struct inode *inode)
{
	struct cgward_root_key key = {
	    .policy_id = policy_id,
	    .ino = CGWARD_DEVICE_KEY((inode->i_mode & S_IFMT) == S_IFBLK, inode->i_rdev),
	};
	struct cgward_root_value *entry = bpf_map_lookup_elem(&write_roots, &key);

	return entry && entry->access == CGWARD_ACCESS_DEVICE;
}

/* A mandatory rule above the cgroup's own policy must allow the device as well. */
static __always_inline bool device_allowed(const struct cgward_cgroup_policy *policy,
					   struct inode *inode)
{
	return device_allowed_by(policy->policy_id, inode) &&
	       (!policy->mandatory_id || device_allowed_by(policy->mandatory_id, inode));
}

/* Opening the device inode for writing, or an ioctl on it that is not harmless. */
static __always_inline int decide_device(const struct cgward_cgroup_policy *policy, __u64 cgroup_id,
					 const struct write_request *request, struct inode *inode)
{
	if (device_allowed(policy, inode))
		return 0;
	return deny_request(policy, cgroup_id, request, CGWARD_REASON_DEVICE);
}

#define TIOCSTI	  0x5412
#define TIOCLINUX 0x541C
#define KDSKBENT  0x4B47
#define KDSKBSENT 0x4B49

/*
 * Input pushed into a terminal is read by whoever reads it next: the
 * user's shell once the confined command has exited (bubblewrap's
 * CVE-2017-5226). TIOCLINUX pastes a console selection; KDSKBENT and
 * KDSKBSENT bind keys of the console to strings it then types. Denied on
 * every file: the command means the same to every terminal.
 */
static __always_inline bool injects_input(unsigned int cmd)
{
	return cmd == TIOCSTI || cmd == TIOCLINUX || cmd == KDSKBENT || cmd == KDSKBSENT;
}

/*
 * Commands that do_vfs_ioctl() answers before any driver or file system
 * sees them, whatever the file: descriptor flags, and reads of a file's
 * block size, extents and attribute flags.
 */
static __always_inline bool vfs_answers(unsigned int cmd)
{
	switch (cmd) {
	case 0x5451:			      /* FIOCLEX */
	case 0x5450:			      /* FIONCLEX */
	case 0x5421:			      /* FIONBIO */
	case 0x5452:			      /* FIOASYNC */
	case 0x5460:			      /* FIOQSIZE */
	case 2:				      /* FIGETBSZ */
	case IOC(IOC_R | IOC_W, 'f', 11, 32): /* FS_IOC_FIEMAP */
	case IOC(IOC_R, 'f', 1, 8):	      /* FS_IOC_GETFLAGS */
	case IOC(IOC_R, 'X', 31, 28):	      /* FS_IOC_FSGETXATTR */
		return true;
	}
	return false;
}

/*
 * Commands that only read, as file systems answer them on regular files
 * and directories: isatty()'s TCGETS and the window size (ENOTTY there),
 * and the file's and its file system's identity and attributes.
 */
static __always_inline bool file_read_only(unsigned int cmd)
{
	switch (cmd) {
	case 0x5401:			      /* TCGETS */
	case 0x5413:			      /* TIOCGWINSZ */
	case 0x541B:			      /* FIONREAD */
	case 1:				      /* FIBMAP */
	case IOC(IOC_R, 'f', 1, 4):	      /* FS_IOC32_GETFLAGS */
	case IOC(IOC_R, 'v', 1, 8):	      /* FS_IOC_GETVERSION */
	case IOC(IOC_R, 'v', 1, 4):	      /* FS_IOC32_GETVERSION */
	case IOC(IOC_R, 0x94, 49, 256):	      /* FS_IOC_GETFSLABEL */
	case IOC(IOC_R, 0x15, 0, 17):	      /* FS_IOC_GETFSUUID */
	case IOC(IOC_R, 0x15, 1, 129):	      /* FS_IOC_GETFSSYSFSPATH */
	case IOC(IOC_W, 'f', 21, 12):	      /* FS_IOC_GET_ENCRYPTION_POLICY */
	case IOC(IOC_R | IOC_W, 'f', 22, 9):  /* FS_IOC_GET_ENCRYPTION_POLICY_EX */
	case IOC(IOC_R | IOC_W, 'f', 134, 4): /* FS_IOC_MEASURE_VERITY */
		return true;
	}
	return false;
}

#define IOC_TYPE(cmd) (((cmd) >> 8) & 0xff)
#define IOC_NR(cmd)   ((cmd)&0xff)

/*
 * Commands that act on a whole file system, from any file on it, inside a
 * root too: freezing, trimming or shutting it down, growing it, changing
 * its label, UUID or journal, and btrfs's device, balance and scrub
 * commands. Matched by type and number, as their sizes vary with the
 * architecture and the version of their structures.
 */
static __always_inline bool acts_on_file_system(unsigned int cmd)
{
	switch (IOC_TYPE(cmd)) {
	case 'X': /* FIFREEZE, FITHAW, FITRIM, FS_IOC_SHUTDOWN, XFS_IOC_FSGROWFS* */
		switch (IOC_NR(cmd)) {
		case 119:
		case 120:
		case 121:
		case 125:
		case 110:
		case 111:
		case 112:
			return true;
		}
		return false;
	case 'f': /* EXT4_IOC_GROUP_EXTEND, _GROUP_ADD, _RESIZE_FS, _SWAP_BOOT, _CHECKPOINT */
		switch (IOC_NR(cmd)) {
		case 7:
		case 8:
		case 16:
		case 17:
		case 43:
			return true;
		}
		/* EXT4_IOC_SETFSUUID; its read is EXT4_IOC_GETFSUUID, the same number. */
		return cmd == IOC(IOC_W, 'f', 44, 8);
	case 0x94: /* BTRFS_IOC_RESIZE, device, balance, scrub, replace; FS_IOC_SETFSLABEL */
		switch (IOC_NR(cmd)) {
		case 3:
		case 10:
		case 11:
		case 12:
		case 27:
		case 32:
		case 33:
		case 50:
		case 53:
		case 57:
		case 58:
			return true;
		}
		return false;
	}
	return false;
}

#define PID_FS_MAGIC 0x50494446
#define NSFS_MAGIC   0x6e736673

/*
 * A pidfd's or a namespace's file: handles on a process or a namespace,
 * not files (their ioctls name the process's namespaces).
 */
static __always_inline bool is_handle_file(struct inode *inode)
{
	unsigned long magic = inode->i_sb->s_magic;

	return magic == PID_FS_MAGIC || magic == NSFS_MAGIC;
}

/*
 * An ioctl of an enforced task. Regular files and directories: reads are
 * allowed, commands that act on the whole file system are denied, and any
 * other command may change the file (chattr's FS_IOC_SETFLAGS needs only a
 * read-only descriptor), so the walk judges it as a write to the file.
 * Sockets, pipes and anonymous files carry no file system write.
 */
static __always_inline int decide_ioctl(struct file *file, unsigned int cmd)
{
	struct write_request request = {
	    .op = CGWARD_OP_IOCTL,
	    .arg = cmd,
	    .path = {.dentry = file->f_path.dentry, .mnt = file->f_path.mnt},
	};
	struct cgward_cgroup_policy *policy;
	struct inode *inode = file->f_inode;
	umode_t mode = inode->i_mode & S_IFMT;
	__u64 cgroup_id;

	policy = current_policy(&cgroup_id);
	if (!policy)
		return 0;
	if (injects_input(cmd))
		return deny_request(policy, cgroup_id, &request, CGWARD_REASON_ESCAPE_HATCH);
	if (vfs_answers(cmd))
		return 0;
	if (is_device_node(mode)) {
		if (mode == S_IFCHR &&
		    (is_harmless_chardev(inode->i_rdev) || is_terminal(inode->i_rdev)))
			return 0;
		return decide_device(policy, cgroup_id, &request, inode);
	}
	if ((mode != S_IFREG && mode != S_IFDIR) || is_handle_file(inode) || file_read_only(cmd))
		return 0;
	if (acts_on_file_system(cmd))
		return deny_request(policy, cgroup_id, &request, CGWARD_REASON_ESCAPE_HATCH);
	return decide_for(policy, cgroup_id, &request, false);
}

#endif
