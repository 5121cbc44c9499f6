// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the fidelity suite starts: it prints, one "key value" a line on
 * stdout, everything a process can observe about itself that fork+execve
 * decides (ids, capabilities, limits, signals, namespaces, scheduling,
 * per-mm flags, the auxiliary vector...).  The suite starts it every way
 * there is and compares the lines.  A value that cannot be read is
 * printed as "error <errno name>", so an unsupported attribute still
 * compares.  Nothing here depends on the probe's own pid: the runner
 * that started it rewrites its own pid and the probe's into names.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/prctl.h>
#include <sys/auxv.h>
#include <sys/fsuid.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include "fidelity.h"

#ifndef PR_GET_MDWE
#define PR_GET_MDWE 66
#endif
#ifndef PR_GET_MEMORY_MERGE
#define PR_GET_MEMORY_MERGE 68
#endif
#ifndef PR_GET_AUXV
#define PR_GET_AUXV 0x41555856
#endif
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
#ifndef PR_SPEC_L1D_FLUSH
#define PR_SPEC_L1D_FLUSH 2
#endif

static void put_long(const char *key, long v)
{
	if (v == -1 && errno)
		printf("%s error %s\n", key, strerrorname_np(errno));
	else
		printf("%s %ld\n", key, v);
}

/* prctl(2) get commands that return the value. */
static void prctl_value(const char *key, int op, unsigned long arg)
{
	errno = 0;
	put_long(key, prctl(op, arg, 0, 0, 0));
}

/* prctl(2) get commands that store an int through arg2. */
static void prctl_stored(const char *key, int op)
{
	int v = 0;

	errno = 0;
	if (prctl(op, &v, 0, 0, 0) < 0)
		put_long(key, -1);
	else
		put_long(key, v);
}

/* A file's first line, or its whole text folded onto one line. */
static void put_file(const char *key, const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		printf("%s error %s\n", key, strerrorname_np(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		printf("%s error %s\n", key, strerrorname_np(errno));
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	/* Lines joined by ";", runs of blanks folded into one space. */
	for (char *p = buf, *q = buf; ; p++) {
		if (*p == '\n')
			*p = ';';
		if ((*p == ' ' || *p == '\t') && (q == buf || q[-1] == ' '))
			continue;
		*q++ = *p == '\t' ? ' ' : *p;
		if (!*p)
			break;
	}
	printf("%s %s\n", key, buf);
}

static void put_link(const char *key, const char *path)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0) {
		printf("%s error %s\n", key, strerrorname_np(errno));
		return;
	}
	buf[n] = '\0';
	printf("%s %s\n", key, buf);
}

/*
 * /proc/self/status, less what counts memory, context switches or queued
 * signals of this very process (it differs between two forks as well).
 */
static void put_status(void)
{
	static const char *const varies[] = {
		"Vm", "Rss", "Hugetlb", "voluntary_ctxt_switches",
		"nonvoluntary_ctxt_switches", "SigQ",
	};
	char line[1024];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f) {
		printf("status error %s\n", strerrorname_np(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;
		size_t i;

		if (!colon)
			continue;
		for (i = 0; i < sizeof(varies) / sizeof(varies[0]); i++)
			if (!strncmp(line, varies[i], strlen(varies[i])))
				break;
		if (i < sizeof(varies) / sizeof(varies[0]))
			continue;
		*colon = '\0';
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		v[strcspn(v, "\n")] = '\0';
		printf("status.%s %s\n", line, v);
	}
	fclose(f);
}

/*
 * /proc/self/stat fields fork and exec decide: flags, tty, process group
 * of the terminal, priority, nice, policy, rt_priority, exit_signal.
 */
static void put_stat(void)
{
	static const struct { int field; const char *name; } keep[] = {
		{ 5, "pgrp" }, { 6, "session" }, { 7, "tty_nr" }, { 8, "tpgid" },
		{ 9, "flags" }, { 18, "priority" }, { 19, "nice" },
		{ 38, "exit_signal" }, { 40, "rt_priority" }, { 41, "policy" },
	};
	char buf[4096], *p, *save;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field;
	size_t k = 0;

	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0 || !(p = strrchr((buf[n] = '\0', buf), ')'))) {
		printf("stat error\n");
		return;
	}
	/* Field 3 (state) follows the comm's closing parenthesis. */
	for (field = 3, p = strtok_r(p + 1, " \n", &save); p && k < 10;
	     field++, p = strtok_r(NULL, " \n", &save))
		if (field == keep[k].field)
			printf("stat.%s %s\n", keep[k++].name, p);
}

static void put_ids(void)
{
	uid_t r, e, s;
	gid_t rg, eg, sg, groups[NGROUPS_MAX];
	int n;

	if (getresuid(&r, &e, &s) == 0)
		printf("uids %u %u %u fsuid %d\n", r, e, s, setfsuid(-1));
	if (getresgid(&rg, &eg, &sg) == 0)
		printf("gids %u %u %u fsgid %d\n", rg, eg, sg, setfsgid(-1));
	n = getgroups(NGROUPS_MAX, groups);
	printf("groups");
	for (int i = 0; i < n; i++)
		printf(" %u", groups[i]);
	printf("\n");
}

static void put_limits(void)
{
	for (int i = 0; i < RLIM_NLIMITS; i++) {
		struct rlimit rl;

		if (getrlimit(i, &rl))
			printf("rlimit.%d error %s\n", i, strerrorname_np(errno));
		else
			printf("rlimit.%d %llu %llu\n", i,
			       (unsigned long long)rl.rlim_cur,
			       (unsigned long long)rl.rlim_max);
	}
}

static void put_signals(void)
{
	sigset_t mask;

	sigprocmask(SIG_SETMASK, NULL, &mask);
	printf("sigmask");
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&mask, sig) == 1)
			printf(" %d", sig);
	printf("\n");
	printf("sigaction");
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa))
			continue;
		if (sa.sa_handler == SIG_IGN)
			printf(" %d:ign", sig);
		else if (sa.sa_handler != SIG_DFL)
			printf(" %d:handler", sig);
		else if (sa.sa_flags & ~SA_RESTORER)
			printf(" %d:flags=%#x", sig, sa.sa_flags);
	}
	printf("\n");
	for (int which = ITIMER_REAL; which <= ITIMER_PROF; which++) {
		struct itimerval it;

		if (getitimer(which, &it) == 0)
			printf("itimer.%d %s\n", which,
			       it.it_value.tv_sec || it.it_value.tv_usec ?
			       "armed" : "off");
	}
}

static void put_sched(void)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
		uint32_t util_min, util_max;
	} attr;
	cpu_set_t set;

	errno = 0;
	put_long("sched.policy", sched_getscheduler(0));
	errno = 0;
	put_long("sched.nice", getpriority(PRIO_PROCESS, 0));
	memset(&attr, 0, sizeof(attr));
	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) == 0)
		printf("sched.attr policy %u flags %#llx nice %d prio %u util %u %u\n",
		       attr.policy, (unsigned long long)attr.flags, attr.nice,
		       attr.priority, attr.util_min, attr.util_max);
	else
		printf("sched.attr error %s\n", strerrorname_np(errno));
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		printf("sched.affinity");
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set))
				printf(" %d", cpu);
		printf("\n");
	}
	errno = 0;
	put_long("ioprio", syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0));
}

static void put_prctl(void)
{
	prctl_value("prctl.no_new_privs", PR_GET_NO_NEW_PRIVS, 0);
	prctl_value("prctl.seccomp", PR_GET_SECCOMP, 0);
	prctl_value("prctl.securebits", PR_GET_SECUREBITS, 0);
	prctl_value("prctl.keepcaps", PR_GET_KEEPCAPS, 0);
	prctl_value("prctl.dumpable", PR_GET_DUMPABLE, 0);
	prctl_value("prctl.mdwe", PR_GET_MDWE, 0);
	prctl_value("prctl.thp_disable", PR_GET_THP_DISABLE, 0);
	prctl_value("prctl.memory_merge", PR_GET_MEMORY_MERGE, 0);
	prctl_value("prctl.timerslack", PR_GET_TIMERSLACK, 0);
	prctl_value("prctl.io_flusher", PR_GET_IO_FLUSHER, 0);
	prctl_stored("prctl.pdeathsig", PR_GET_PDEATHSIG);
	prctl_stored("prctl.child_subreaper", PR_GET_CHILD_SUBREAPER);
	prctl_stored("prctl.tsc", PR_GET_TSC);
	prctl_value("prctl.mce_kill", PR_MCE_KILL_GET, 0);
	prctl_value("prctl.spec.store_bypass", PR_GET_SPECULATION_CTRL,
		    PR_SPEC_STORE_BYPASS);
	prctl_value("prctl.spec.indirect_branch", PR_GET_SPECULATION_CTRL,
		    PR_SPEC_INDIRECT_BRANCH);
	prctl_value("prctl.spec.l1d_flush", PR_GET_SPECULATION_CTRL,
		    PR_SPEC_L1D_FLUSH);
	errno = 0;
	put_long("personality", personality(0xffffffff));
}

/*
 * The auxiliary vector: values, except addresses (they move with the
 * layout randomisation in every process) which print as "address".
 */
static void put_auxv(void)
{
	static const struct { unsigned long type; const char *name; } values[] = {
		{ AT_PAGESZ, "pagesz" }, { AT_CLKTCK, "clktck" },
		{ AT_FLAGS, "flags" }, { AT_UID, "uid" }, { AT_EUID, "euid" },
		{ AT_GID, "gid" }, { AT_EGID, "egid" }, { AT_SECURE, "secure" },
		{ AT_HWCAP, "hwcap" }, { AT_HWCAP2, "hwcap2" },
		{ AT_MINSIGSTKSZ, "minsigstksz" }, { AT_PHENT, "phent" },
		{ AT_PHNUM, "phnum" },
	}, addresses[] = {
		{ AT_PHDR, "phdr" }, { AT_ENTRY, "entry" }, { AT_BASE, "base" },
		{ AT_RANDOM, "random" }, { AT_SYSINFO_EHDR, "vdso" },
	};

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		unsigned long v;

		errno = 0;
		v = getauxval(values[i].type);
		if (errno)
			printf("auxv.%s absent\n", values[i].name);
		else
			printf("auxv.%s %#lx\n", values[i].name, v);
	}
	for (size_t i = 0; i < sizeof(addresses) / sizeof(addresses[0]); i++) {
		errno = 0;
		printf("auxv.%s %s\n", addresses[i].name,
		       getauxval(addresses[i].type) ? "address" :
		       errno ? "absent" : "0");
	}
	printf("auxv.execfn %s\n", (char *)getauxval(AT_EXECFN));
	printf("auxv.platform %s\n", (char *)getauxval(AT_PLATFORM));
}

static void put_keyrings(void)
{
	for (size_t i = 0; i < FIDELITY_COUNT(fidelity_keyrings); i++) {
		char key[32];

		snprintf(key, sizeof(key), "keyring.%s", fidelity_keyrings[i].name);
		errno = 0;
		put_long(key, syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
				      fidelity_keyrings[i].id, 0));
	}
}

static void put_namespaces(void)
{
	for (size_t i = 0; i < FIDELITY_COUNT(fidelity_namespaces); i++) {
		char key[64], path[64];

		snprintf(key, sizeof(key), "ns.%s", fidelity_namespaces[i]);
		snprintf(path, sizeof(path), "/proc/self/ns/%s", fidelity_namespaces[i]);
		put_link(key, path);
	}
	put_file("userns.uid_map", "/proc/self/uid_map");
	put_file("userns.gid_map", "/proc/self/gid_map");
	put_file("userns.setgroups", "/proc/self/setgroups");
}

/* The open fds and what they are, before this program opens any. */
static void put_fds(void)
{
	char line[8192] = "fds";
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int self = dir ? dirfd(dir) : -1;
	int max = -1;

	/* In numeric order: readdir gives them so on procfs, but be sure. */
	while (dir && (d = readdir(dir)))
		if (d->d_name[0] != '.' && atoi(d->d_name) > max)
			max = atoi(d->d_name);
	for (int fd = 0; fd <= max; fd++) {
		char path[64], target[PATH_MAX];
		ssize_t n;
		int flags = fcntl(fd, F_GETFD);

		if (fd == self || flags < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		/* Pipes and sockets differ in inode between runs. */
		if (!strncmp(target, "pipe:", 5) || !strncmp(target, "socket:", 7))
			target[strcspn(target, ":")] = '\0';
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " %d:%s%s", fd, target, flags & FD_CLOEXEC ? ":cloexec" : "");
	}
	if (dir)
		closedir(dir);
	printf("%s\n", line);
}

int main(int argc, char **argv)
{
	extern char **environ;
	const char *denied = getenv("FIDELITY_DENIED");
	char cwd[PATH_MAX];
	mode_t mask = umask(0);

	put_fds();
	printf("argv");
	for (int i = 0; i < argc; i++)
		printf(" [%s]", argv[i]);
	printf("\nenvp");
	for (char **e = environ; *e; e++)
		printf(" [%s]", *e);
	printf("\n");
	put_ids();
	put_limits();
	put_signals();
	put_sched();
	put_prctl();
	put_auxv();
	put_keyrings();
	put_namespaces();
	printf("cwd %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "error");
	put_link("root", "/proc/self/root");
	put_link("exe", "/proc/self/exe");
	umask(mask);
	printf("umask %04o\n", mask);
	put_file("comm", "/proc/self/comm");
	put_file("cgroup", "/proc/self/cgroup");
	put_file("oom_score_adj", "/proc/self/oom_score_adj");
	put_file("coredump_filter", "/proc/self/coredump_filter");
	put_file("loginuid", "/proc/self/loginuid");
	put_file("sessionid", "/proc/self/sessionid");
	put_file("timens_offsets", "/proc/self/timens_offsets");
	put_file("attr.current", "/proc/self/attr/current");
	printf("pids parent %d session %d pgrp %d\n", getppid(), getsid(0),
	       getpgid(0));
	/* A Landlock domain: the path the suite denied stays denied. */
	if (denied) {
		int fd = open(denied, O_RDONLY | O_CLOEXEC);

		printf("landlock.denied %s\n", fd < 0 ? strerrorname_np(errno) : "opened");
		if (fd >= 0)
			close(fd);
	}
	put_status();
	put_stat();
	return fflush(stdout) ? 1 : 0;
}
