/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the fidelity probe prints and its driver names the same way: the
 * namespaces of /proc/self/ns and the special keyrings.
 */
#ifndef FIDELITY_H
#define FIDELITY_H

#include <linux/keyctl.h>

static const char *const fidelity_namespaces[] = {
	"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children",
	"time", "time_for_children", "user", "uts",
};

static const struct {
	int id;
	const char *name;
} fidelity_keyrings[] = {
	{ KEY_SPEC_THREAD_KEYRING, "thread" },
	{ KEY_SPEC_PROCESS_KEYRING, "process" },
	{ KEY_SPEC_SESSION_KEYRING, "session" },
	{ KEY_SPEC_USER_KEYRING, "user" },
};

#define FIDELITY_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#endif
