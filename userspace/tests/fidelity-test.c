// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The differential fidelity suite: is a spawned child what fork+execve
 * would have made?  For each scenario (a set of attributes of the parent
 * set to something other than the default), a fresh runner process sets
 * them, then starts tests/fidelity-probe one way: fork+execve (the
 * reference), vfork+execve, glibc's posix_spawn, libpidspawn's
 * posix_spawn, the builder by path and by fd, a kernel template, the
 * library's template object.  The probe prints what it observes of
 * itself; every line must equal the reference's, except the intended
 * differences in intended[] below, each with its reason.  Each scenario
 * also checks that the reference shows the attributes it set (or that
 * fork+execve resets them), so a scenario that changed nothing fails.
 *
 *   fidelity-test [--userns] [scenario]
 *
 * --userns: first enter a new user namespace mapping the caller's ids
 * to 0 (as an unprivileged container would), then run the scenarios.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include "fidelity.h"
#include "pidspawn.h"

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif
#ifndef PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE 67
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

extern char **environ;
static char probe[PATH_MAX], dir[PATH_MAX];

/*
 * The launch scenario: what each way sets in the child alone before its
 * program, where a forked child writes /proc/self/oom_score_adj and calls
 * sched_setaffinity(), personality(), setrlimit(), umask(), prctl(),
 * landlock_restrict_self() and seccomp(), and the builder takes
 * SET_OOM_SCORE_ADJ, SET_CPU_AFFINITY, SET_PERSONALITY, SET_RLIMIT,
 * SET_UMASK, SET_PDEATHSIG, SET_NO_NEW_PRIVS, SET_LANDLOCK and
 * SET_SECCOMP_FILTER.  posix_spawn() has no attribute for any of them.
 */
static bool launch;
static int launch_ruleset = -1;
static const struct rlimit launch_nofile = { 100, 200 }, launch_core = { 0, 0 };
static struct sock_filter allow_all[] = {
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
static const struct sock_fprog allow_all_prog = { .len = 1, .filter = allow_all };

/*
 * The launch-namespaces scenario: new namespaces for the child, in which
 * it is root as after "unshare -r": a forked child unshares them and
 * writes its own setgroups and maps, the builder takes SET_NAMESPACES,
 * DENY_SETGROUPS, SET_UID_MAP and SET_GID_MAP.
 */
#define LAUNCH_NAMESPACES (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | \
			   CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)
static bool launch_ns;
static char launch_uid_map[32], launch_gid_map[32];

static int set_file(const char *path, const char *text);

static void launch_namespaces_in_child(void)
{
	if (!launch_ns)
		return;
	if (unshare(LAUNCH_NAMESPACES) ||
	    set_file("/proc/self/setgroups", "deny") ||
	    set_file("/proc/self/uid_map", launch_uid_map) ||
	    set_file("/proc/self/gid_map", launch_gid_map))
		_exit(126);
}

/*
 * The launch-identity scenario: a privileged launcher starts a daemon as
 * uid 1000 with CAP_NET_BIND_SERVICE alone: a forked child by prctl(),
 * setgroups(), setresgid(), setresuid() and capset(), the builder by
 * SET_SECUREBITS, CAPBSET_DROP, SET_GROUPS, SET_RESGID, SET_RESUID,
 * SET_CAPS and CAP_AMBIENT_RAISE. SECBIT_NO_SETUID_FIXUP keeps the
 * capabilities across the uid change; the ids are all alike, since an
 * execve() whose effective id differs from the real one counts as setid
 * and clears the ambient set.
 */
static bool launch_id;
static const gid_t launch_groups[] = { 4, 24, 27 };
static struct __user_cap_data_struct launch_caps[2];	/* the runner's, +inheritable */

/* In the child, in the order the builder applies them: 0 or -errno. */
static int launch_identity(void)
{
	struct __user_cap_header_struct head = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	if (prctl(PR_SET_SECUREBITS, 1 << 2 /* SECBIT_NO_SETUID_FIXUP */, 0, 0, 0) ||
	    prctl(PR_CAPBSET_DROP, CAP_SYS_BOOT, 0, 0, 0) ||
	    setgroups(3, launch_groups) || setresgid(100, 100, 100) ||
	    setresuid(1000, 1000, 1000) || syscall(SYS_capset, &head, launch_caps) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE, 0, 0))
		return -errno;
	return 0;
}

static int launch_identity_commands(int pidfd)
{
	uint64_t eff = launch_caps[0].effective | (uint64_t)launch_caps[1].effective << 32;
	uint64_t prm = launch_caps[0].permitted | (uint64_t)launch_caps[1].permitted << 32;
	uint64_t inh = launch_caps[0].inheritable | (uint64_t)launch_caps[1].inheritable << 32;

	if (pidspawn_set_securebits(pidfd, 1 << 2) ||
	    pidspawn_capbset_drop(pidfd, CAP_SYS_BOOT) ||
	    pidspawn_set_groups(pidfd, 3, launch_groups) ||
	    pidspawn_set_resgid(pidfd, 100, 100, 100) ||
	    pidspawn_set_resuid(pidfd, 1000, 1000, 1000) ||
	    pidspawn_set_caps(pidfd, eff, prm, inh) ||
	    pidspawn_cap_ambient_raise(pidfd, CAP_NET_BIND_SERVICE))
		return -errno;
	return 0;
}

static void launch_in_child(void)
{
	cpu_set_t cpu0;
	int fd;

	if (launch_id && launch_identity())
		_exit(126);
	launch_namespaces_in_child();
	if (!launch)
		return;
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "567", 3) != 3 ||
	    sched_setaffinity(0, sizeof(cpu0), &cpu0) ||
	    personality(ADDR_NO_RANDOMIZE) < 0)
		_exit(126);
	close(fd);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR2) ||
	    setrlimit(RLIMIT_NOFILE, &launch_nofile) ||
	    setrlimit(RLIMIT_CORE, &launch_core) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, launch_ruleset, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &allow_all_prog))
		_exit(126);
	umask(037);
}

/* All but the filter, which a template does not take. */
static int launch_commands(int pidfd)
{
	cpu_set_t cpu0;

	if (launch_id && launch_identity_commands(pidfd))
		return -errno;
	if (launch_ns &&
	    (pidspawn_set_namespaces(pidfd, LAUNCH_NAMESPACES) ||
	     pidspawn_deny_setgroups(pidfd) ||
	     pidspawn_set_uid_map(pidfd, launch_uid_map) ||
	     pidspawn_set_gid_map(pidfd, launch_gid_map)))
		return -errno;
	if (!launch)
		return 0;
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (pidspawn_set_oom_score_adj(pidfd, 567) ||
	    pidspawn_set_cpu_affinity(pidfd, sizeof(cpu0), &cpu0) ||
	    pidspawn_set_personality(pidfd, ADDR_NO_RANDOMIZE) ||
	    pidspawn_set_pdeathsig(pidfd, SIGUSR2) ||
	    pidspawn_set_rlimit(pidfd, RLIMIT_NOFILE, &launch_nofile) ||
	    pidspawn_set_rlimit(pidfd, RLIMIT_CORE, &launch_core) ||
	    pidspawn_set_no_new_privs(pidfd) || pidspawn_set_umask(pidfd, 037) ||
	    pidspawn_set_landlock(pidfd, launch_ruleset))
		return -errno;
	return 0;
}

static int launch_filter(int pidfd)
{
	if (launch && pidspawn_set_seccomp_filter(pidfd, 0, &allow_all_prog))
		return -errno;
	return 0;
}

/* ---- The ways to start the probe.  Each returns its pid, or -errno. ---- */

static char *probe_argv[] = { "fidelity-probe", "one", "two words", NULL };

static pid_t by_fork(int *pidfd)
{
	pid_t pid = fork();

	(void)pidfd;
	if (pid == 0) {
		launch_in_child();
		execve(probe, probe_argv, environ);
		_exit(127);
	}
	return pid < 0 ? -errno : pid;
}

static pid_t by_vfork(int *pidfd)
{
	pid_t pid;

	(void)pidfd;
	pid = vfork();
	if (pid == 0) {
		launch_in_child();
		execve(probe, probe_argv, environ);
		_exit(127);
	}
	return pid < 0 ? -errno : pid;
}

static pid_t by_glibc(int *pidfd)
{
	int (*glibc_spawn)(pid_t *, const char *, const void *, const void *,
			   char *const[], char *const[]);
	pid_t pid;
	int err;

	(void)pidfd;
	/* libpidspawn's posix_spawn comes first; glibc's by its version. */
	glibc_spawn = dlvsym(RTLD_NEXT, "posix_spawn", "GLIBC_2.15");
	if (!glibc_spawn)
		return -ENOSYS;
	err = glibc_spawn(&pid, probe, NULL, NULL, probe_argv, environ);
	return err ? -err : pid;
}

static pid_t by_library(int *pidfd)
{
	pid_t pid;
	int err;

	(void)pidfd;
	err = posix_spawn(&pid, probe, NULL, NULL, probe_argv, environ);
	return err ? -err : pid;
}

/* An empty process with argv and envp, its executable set by @set_exec. */
static int configure(int pidfd, int (*set_exec)(int pidfd))
{
	if (set_exec(pidfd) || pidspawn_set_argv(pidfd, probe_argv) ||
	    pidspawn_set_envp(pidfd, environ))
		return -errno;
	return launch_commands(pidfd);
}

static int exec_by_path(int pidfd)
{
	return pidspawn_set_exec_path(pidfd, AT_FDCWD, probe);
}

static int exec_by_fd(int pidfd)
{
	int fd = open(probe, O_PATH | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = pidspawn_set_exec_fd(pidfd, fd);
	close(fd);
	return ret;
}

static pid_t start(int pidfd, int *out)
{
	pid_t pid = pidspawn_start(pidfd);

	if (pid < 0) {
		pid = -errno;
		close(pidfd);
		return pid;
	}
	*out = pidfd;
	return pid;
}

static pid_t by_builder(int *out, int (*set_exec)(int pidfd))
{
	int pidfd = pidspawn_create(0), err;

	if (pidfd < 0)
		return -errno;
	err = configure(pidfd, set_exec);
	if (!err)
		err = launch_filter(pidfd);
	if (err) {
		close(pidfd);
		return err;
	}
	return start(pidfd, out);
}

static pid_t by_builder_path(int *out)
{
	return by_builder(out, exec_by_path);
}

static pid_t by_builder_fd(int *out)
{
	return by_builder(out, exec_by_fd);
}

static pid_t by_template(int *out)
{
	int pidfd = pidspawn_create(0), tfd, err;

	if (pidfd < 0)
		return -errno;
	err = configure(pidfd, exec_by_path);
	tfd = err ? -1 : pidspawn_make_template(pidfd, 0);
	if (!err && tfd < 0)
		err = -errno;
	close(pidfd);
	if (err)
		return err;
	pidfd = pidspawn_template_new(tfd, 0);
	err = -errno;
	close(tfd);
	if (pidfd < 0)
		return err;
	err = launch_filter(pidfd);
	if (err) {
		close(pidfd);
		return err;
	}
	return start(pidfd, out);
}

static pid_t by_library_template(int *out)
{
	struct pidspawn_template *t = pidspawn_template_create(probe, 0);
	pid_t pid;
	int err;

	if (!t)
		return -errno;
	err = pidspawn_template_spawn(t, &pid, out, NULL, NULL, probe_argv,
				      environ);
	pidspawn_template_free(t);
	return err ? -err : pid;
}

static const struct method {
	const char *name;
	pid_t (*spawn)(int *pidfd);
	bool needs_kernel;	/* pidfd_config(): skipped where it is absent */
	bool launch;		/* can set the launch scenario's settings */
} methods[] = {
	{ "fork+execve", by_fork, false, true },
	{ "vfork+execve", by_vfork, false, true },
	{ "glibc-posix_spawn", by_glibc, false, false },
	{ "libpidspawn-posix_spawn", by_library, false, false },
	{ "builder-path", by_builder_path, true, true },
	{ "builder-fd", by_builder_fd, true, true },
	{ "template", by_template, true, true },
	{ "libpidspawn-template", by_library_template, true, false },
};

/*
 * What a pristine child shows differently from fork+execve, on purpose.
 * @methods: a prefix of the method names it applies to.
 */
static const struct intended {
	const char *methods, *key, *reason;
} intended[] = {
	/*
	 * glibc's child sets its internal signals 32 and 33 to SIG_IGN before
	 * execve (__spawni_child); libpidspawn does as glibc does.  The
	 * "sigaction" line still compares every other signal.
	 */
	{ "glibc-posix_spawn", "status.SigIgn", "glibc ignores its internal signals" },
	{ "libpidspawn-", "status.SigIgn", "as glibc's posix_spawn" },
	/* As fexecve() and execveat(fd, "", AT_EMPTY_PATH) name it. */
	{ "builder-fd", "auxv.execfn", "a file given by fd is /dev/fd/N" },
	/*
	 * The library keeps its template fd high in the caller's table (at
	 * 7/8 of RLIMIT_NOFILE), out of the way of the program's own fds; a
	 * table copied from the caller is as large, whatever starts the child.
	 */
	{ "libpidspawn-template", "status.FDSize", "the caller's table holds fd 896" },
	{ NULL, NULL, NULL },
};

/* ---- Scenarios: what the runner sets before it starts the probe. ---- */

static char skip_why[256];

/* The scenario needs what this caller may not do: skip it, saying why. */
static int cannot(const char *what)
{
	snprintf(skip_why, sizeof(skip_why), "%s: %s", what, strerror(errno));
	return 1;
}

static int fail(const char *what)
{
	fprintf(stderr, "setup: %s: %s\n", what, strerror(errno));
	return -1;
}

static int set_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

static int setup_defaults(void)
{
	return 0;
}

/* Limits: each soft limit lowered to a value of its own, hard ones kept. */
static int setup_limits(void)
{
	static const rlim_t soft[RLIM_NLIMITS] = {
		[RLIMIT_CPU] = 3601, [RLIMIT_FSIZE] = 1 << 30,
		[RLIMIT_DATA] = 3ULL << 30, [RLIMIT_STACK] = 6 << 20,
		[RLIMIT_CORE] = 0, [RLIMIT_RSS] = 5 << 20,
		[RLIMIT_NPROC] = 3000, [RLIMIT_NOFILE] = 777,
		[RLIMIT_MEMLOCK] = 40960, [RLIMIT_AS] = 7ULL << 30,
		[RLIMIT_LOCKS] = 999, [RLIMIT_SIGPENDING] = 555,
		[RLIMIT_MSGQUEUE] = 12345, [RLIMIT_NICE] = 0,
		[RLIMIT_RTPRIO] = 0, [RLIMIT_RTTIME] = 4000000,
	};

	for (int i = 0; i < RLIM_NLIMITS; i++) {
		struct rlimit rl;

		if (getrlimit(i, &rl))
			return fail("getrlimit");
		if (soft[i] < rl.rlim_max)
			rl.rlim_cur = soft[i];
		/* One hard limit lowered too: fork and exec keep both. */
		if (i == RLIMIT_CPU)
			rl.rlim_max = rl.rlim_cur + 1;
		if (setrlimit(i, &rl))
			return fail("setrlimit");
	}
	return 0;
}

static int setup_process(void)
{
	cpu_set_t cpus;

	umask(027);
	if (chdir(dir))
		return fail("chdir");
	if (setpriority(PRIO_PROCESS, 0, 3))
		return fail("setpriority");
	if (prctl(PR_SET_TIMERSLACK, 123456, 0, 0, 0))
		return fail("PR_SET_TIMERSLACK");
	if (set_file("/proc/self/oom_score_adj", "567"))
		return fail("oom_score_adj");
	/* Not there without CONFIG_ELF_CORE. */
	if (set_file("/proc/self/coredump_filter", "0x7f") && errno != ENOENT)
		return fail("coredump_filter");
	/* IOPRIO_CLASS_BE, level 6. */
	if (syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 6))
		return fail("ioprio_set");
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		CPU_ZERO(&cpus);
		CPU_SET(0, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus))
			return fail("sched_setaffinity");
	}
	if (sched_setscheduler(0, SCHED_BATCH, &(struct sched_param){ 0 }))
		return fail("SCHED_BATCH");
	if (prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0))
		return fail("PR_MCE_KILL");
	if (prctl(PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0))
		return fail("PR_SET_PDEATHSIG");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return fail("PR_SET_CHILD_SUBREAPER");
	if (prctl(PR_SET_NAME, "fidelity-runner", 0, 0, 0))
		return fail("PR_SET_NAME");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return fail("PR_SET_DUMPABLE");
	if (personality(PER_LINUX | ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT) < 0)
		return fail("personality");
	/* Where the CPU is not affected, there is nothing to set. */
	prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, PR_SPEC_DISABLE, 0, 0);
	/* Keyrings: a session keyring of its own, process and thread ones. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 ||
	    syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1) < 0 ||
	    syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_THREAD_KEYRING, 1) < 0)
		return fail("keyctl");
	if (setitimer(ITIMER_REAL, &(struct itimerval){ .it_value = { 1000, 0 } }, NULL))
		return fail("setitimer");
	return 0;
}

/* Per-mm flags of the caller, which fork+execve carries into the new mm. */
static int setup_mm(void)
{
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return fail("PR_SET_THP_DISABLE");
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0))
		return fail("PR_SET_MDWE");
	/* KSM needs CONFIG_KSM and CAP_SYS_RESOURCE: set it where it can be. */
	prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0);
	return 0;
}

static void handler(int sig)
{
	(void)sig;
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGRTMIN + 2);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return fail("sigprocmask");
	if (signal(SIGUSR2, SIG_IGN) == SIG_ERR || signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
	    signal(SIGRTMAX, SIG_IGN) == SIG_ERR)
		return fail("SIG_IGN");
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGHUP, &sa, NULL) ||
	    sigaction(SIGRTMIN + 3, &sa, NULL))
		return fail("sigaction");
	/* A pending signal: the child starts with none. */
	raise(SIGUSR1);
	return 0;
}

/* A session of its own, with a pseudo-terminal as its controlling tty. */
static int setup_session(void)
{
	int master, slave;

	if (setsid() < 0)
		return fail("setsid");
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master))
		return fail("posix_openpt");
	slave = open(ptsname(master), O_RDWR | O_CLOEXEC);
	if (slave < 0)
		return fail("open the pty");
	if (tcsetpgrp(slave, getpgrp()))
		return fail("tcsetpgrp");
	return 0;
}

/* A process group of its own, without a new session. */
static int setup_pgrp(void)
{
	return setpgid(0, 0) ? fail("setpgid") : 0;
}

/* no_new_privs and two filters that allow everything. */
static int setup_seccomp(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return fail("PR_SET_NO_NEW_PRIVS");
	for (int i = 0; i < 2; i++)
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &allow_all_prog))
			return fail("seccomp");
	return 0;
}

/*
 * A Landlock ruleset that denies reading one file and allows the rest:
 * its descriptor, or -1 with errno.
 */
static int read_ruleset(void)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE,
	};
	/*
	 * Not the suite's folder (in $TMPDIR), but the probe itself: execve
	 * opens it for reading.
	 */
	const char *const readable[] = { "/usr", "/lib", "/lib64", "/etc",
					  "/proc", "/dev", "/sys", probe };
	char denied[PATH_MAX + 16];
	int ruleset, fd;

	snprintf(denied, sizeof(denied), "%s/denied", dir);
	fd = open(denied, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	if (setenv("FIDELITY_DENIED", denied, 1))
		return -1;
	ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return -1;
	for (size_t i = 0; i < sizeof(readable) / sizeof(readable[0]); i++) {
		struct landlock_path_beneath_attr rule = {
			.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
			.parent_fd = open(readable[i], O_PATH | O_CLOEXEC),
		};

		if (rule.parent_fd < 0)
			continue;
		fd = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
			     &rule, 0);
		close(rule.parent_fd);
		if (fd) {
			close(ruleset);
			return -1;
		}
	}
	return ruleset;
}

/* The runner's own Landlock domain, which every way's child inherits. */
static int setup_landlock(void)
{
	int ruleset = read_ruleset();

	if (ruleset < 0)
		return errno == ENOSYS || errno == EOPNOTSUPP ?
			cannot("landlock_create_ruleset") : fail("the Landlock ruleset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0))
		return fail("landlock_restrict_self");
	close(ruleset);
	return 0;
}

/* Every namespace but the user one (CAP_SYS_ADMIN). */
static int setup_namespaces(void)
{
	if (unshare(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWNS |
		    CLONE_NEWCGROUP | CLONE_NEWPID | CLONE_NEWTIME))
		return errno == EPERM ? cannot("unshare") : fail("unshare");
	/* Before any process enters the new time namespace. */
	if (set_file("/proc/self/timens_offsets", "monotonic 1000 0"))
		return fail("timens_offsets");
	return 0;
}

/* Root: other ids, groups and a saved set-user-ID of 0. */
static int setup_ids(void)
{
	gid_t groups[] = { 4, 24, 27 };

	if (setgroups(3, groups))
		return errno == EPERM ? cannot("setgroups") : fail("setgroups");
	if (setresgid(100, 200, 300))
		return errno == EINVAL ? cannot("setresgid") : fail("setresgid");
	if (setresuid(1000, 0, 2000))
		return errno == EINVAL ? cannot("setresuid") : fail("setresuid");
	return 0;
}

/* Root: an ambient capability, a dropped bounding one, securebits. */
static int setup_caps(void)
{
	struct __user_cap_header_struct head = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &head, data))
		return fail("capget");
	data[CAP_TO_INDEX(CAP_NET_BIND_SERVICE)].inheritable |=
		CAP_TO_MASK(CAP_NET_BIND_SERVICE);
	if (syscall(SYS_capset, &head, data))
		return errno == EPERM ? cannot("capset") : fail("capset");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE, 0, 0))
		return errno == EPERM ? cannot("PR_CAP_AMBIENT_RAISE") : fail("PR_CAP_AMBIENT_RAISE");
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_BOOT, 0, 0, 0))
		return fail("PR_CAPBSET_DROP");
	if (prctl(PR_SET_SECUREBITS, 1 << 2 /* SECBIT_NO_SETUID_FIXUP */, 0, 0, 0))
		return fail("PR_SET_SECUREBITS");
	return 0;
}

/* Root: a real-time policy and a negative nice value. */
static int setup_realtime(void)
{
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ 7 }))
		return errno == EPERM ? cannot("SCHED_FIFO") : fail("SCHED_FIFO");
	return 0;
}

/* SCHED_RESET_ON_FORK: the child starts at SCHED_OTHER, nice 0. */
static int setup_reset_on_fork(void)
{
	if (setpriority(PRIO_PROCESS, 0, -4))
		return errno == EACCES || errno == EPERM ? cannot("setpriority") :
		       fail("setpriority");
	if (sched_setscheduler(0, SCHED_RR | SCHED_RESET_ON_FORK,
			       &(struct sched_param){ 3 }))
		return errno == EPERM ? cannot("SCHED_RR|SCHED_RESET_ON_FORK") : fail("SCHED_RR|SCHED_RESET_ON_FORK");
	return 0;
}

/*
 * Each scenario with what the reference child must show: "key value"
 * lines that prove the attributes were set (or, where fork+execve
 * resets them, that they were reset).
 */
/* Nothing of the runner's own: each way sets them in the child. */
static int setup_launch(void)
{
	launch_ruleset = read_ruleset();
	if (launch_ruleset < 0)
		return errno == ENOSYS || errno == EOPNOTSUPP ?
			cannot("landlock_create_ruleset") : fail("the Landlock ruleset");
	launch = true;
	return 0;
}

/*
 * Whether @attempt (0 or -errno) works in a forked child: 0 if it does,
 * else 1 with the scenario skipped for @what (or -1 if fork() fails).
 */
static int works_in_child(int (*attempt)(void), const char *what)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(-attempt());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return fail("fork");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
		return cannot(what);
	}
	return 0;
}

static int new_userns(void)
{
	return unshare(CLONE_NEWUSER) ? -errno : 0;
}

/* Root, with its capabilities: a child that may drop them. */
static int setup_launch_identity(void)
{
	struct __user_cap_header_struct head = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	int err;

	if (syscall(SYS_capget, &head, launch_caps))
		return fail("capget");
	launch_caps[CAP_TO_INDEX(CAP_NET_BIND_SERVICE)].inheritable |=
		CAP_TO_MASK(CAP_NET_BIND_SERVICE);
	/* Where the runner may not (not root, unmapped ids), skipped. */
	err = works_in_child(launch_identity, "dropping the child's privileges");
	if (err)
		return err;
	launch_id = true;
	return 0;
}

/* The runner's own ids become root of the child's user namespace. */
static int setup_launch_namespaces(void)
{
	int err;

	snprintf(launch_uid_map, sizeof(launch_uid_map), "0 %u 1", geteuid());
	snprintf(launch_gid_map, sizeof(launch_gid_map), "0 %u 1", getegid());
	/* Where user namespaces are off, so is the scenario. */
	err = works_in_child(new_userns, "unshare(CLONE_NEWUSER)");
	if (err)
		return err;
	launch_ns = true;
	return 0;
}

static const struct scenario {
	const char *name;
	int (*setup)(void);
	const char *expect[12];
} scenarios[] = {
	{ "defaults", setup_defaults, { "stat.exit_signal 17",
		"ns.pid RUNNER.ns.pid", "keyring.session RUNNER.keyring.session" } },
	{ "limits", setup_limits, { "rlimit.7 ~777 ", "rlimit.0 3601 3602" } },
	{ "process", setup_process, {
		"umask 0027", "sched.nice 3", "sched.policy 3", "oom_score_adj 567",
		"prctl.timerslack 123456", "personality 2359296", "ioprio 16390",
		"itimer.0 off" } },
	{ "mm", setup_mm, { "prctl.thp_disable 1", "prctl.mdwe 1" } },
	{ "signals", setup_signals, {
		"sigmask ~10 17 36", "sigaction ~12:ign 13:ign", "sigaction ~64:ign",
		"status.SigPnd 0000000000000000", "status.ShdPnd 0000000000000000" } },
	{ "session", setup_session, { "pids parent RUNNER session RUNNER pgrp RUNNER",
		"stat.tpgid RUNNER", "stat.tty_nr RUNNER.tty" } },
	{ "pgrp", setup_pgrp, { "stat.pgrp RUNNER" } },
	{ "seccomp", setup_seccomp, { "prctl.no_new_privs 1", "status.Seccomp 2",
		"status.Seccomp_filters 2" } },
	{ "landlock", setup_landlock, { "landlock.denied EACCES" } },
	{ "namespaces", setup_namespaces, { "timens_offsets ~monotonic 1000 0",
		"pids ~parent 0", "ns.pid NEW.1", "ns.pid_for_children NEW.1",
		"ns.time RUNNER.ns.time_for_children", "ns.net RUNNER.ns.net" } },
	{ "ids", setup_ids, { "uids 1000 0 0 fsuid 0", "gids 100 200 200 fsgid 200",
		"groups 4 24 27" } },
	{ "caps", setup_caps, { "status.CapAmb 0000000000000400",
		"prctl.securebits 4", "status.CapInh 0000000000000400" } },
	{ "realtime", setup_realtime, { "sched.policy 1", "stat.rt_priority 7" } },
	{ "reset-on-fork", setup_reset_on_fork, { "sched.policy 0", "sched.nice 0" } },
	{ "launch", setup_launch, { "rlimit.7 100 200", "rlimit.4 0 0", "umask 0037",
		"prctl.pdeathsig 12", "prctl.no_new_privs 1", "landlock.denied EACCES",
		"status.Seccomp 2", "status.Seccomp_filters 1", "oom_score_adj 567",
		"sched.affinity 0", "personality 262144" } },
	{ "launch-identity", setup_launch_identity, { "uids 1000 1000 1000 fsuid 1000",
		"gids 100 100 100 fsgid 100", "groups 4 24 27", "status.CapAmb 0000000000000400",
		"status.CapEff 0000000000000400", "prctl.securebits 4",
		"status.CapInh 0000000000000400" } },
	{ "launch-namespaces", setup_launch_namespaces, { "ns.user ~NEW.", "ns.net ~NEW.",
		"ns.mnt ~NEW.", "ns.uts ~NEW.", "ns.ipc ~NEW.", "ns.cgroup ~NEW.",
		"ns.pid RUNNER.ns.pid", "uids 0 0 0 fsuid 0", "gids 0 0 0 fsgid 0",
		"userns.setgroups deny", "userns.uid_map ~0 " } },
};

/* ---- Running one method in one scenario. ---- */

struct result {
	char *text;		/* the probe's output, normalised */
	char error[256];	/* why there is no output; "" if there is */
	bool skipped;
};

/*
 * Replace whole-word occurrences of @from in @text (room for @size bytes)
 * by @to: a runner's own pid, keyrings, namespaces and terminal get
 * names, so that outputs of different runners compare.
 */
static bool is_pid_line(const char *text, const char *at)
{
	static const char *const keys[] = {
		"pids ", "status.Tgid", "status.Pid", "status.PPid",
		"status.TracerPid", "status.NS", "stat.pgrp", "stat.session",
		"stat.tpgid",
	};

	while (at > text && at[-1] != '\n')
		at--;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strncmp(at, keys[i], strlen(keys[i])))
			return true;
	return false;
}

/* @pids: only in the lines that hold pids (a gid may equal a pid). */
static void rename_word(char *text, size_t size, const char *from, const char *to,
			bool pids)
{
	size_t n = strlen(from), m = strlen(to);
	char *p = text;

	while (n && (p = strstr(p, from))) {
		bool start = p == text || strchr(" \t:", p[-1]);
		bool end = strchr(" \t\n", p[n]) != NULL;

		if (!start || !end || strlen(text) + m - n + 1 > size ||
		    (pids && !is_pid_line(text, p))) {
			p += n;
			continue;
		}
		memmove(p + m, p + n, strlen(p + n) + 1);
		memcpy(p, to, m);
		p += m;
	}
}

/*
 * Namespaces the runner cannot name (a new pid namespace has no link
 * before its first process): "type:[inode]" words left after the renaming
 * become NEW.1, NEW.2... in the order the probe prints them.
 */
static void rename_new_namespaces(char *text, size_t size)
{
	char seen[16][64];
	int n = 0;

	for (char *p = text; (p = strstr(p, ":[")); p += 2) {
		char *w = p, word[64], name[16];
		int i;

		while (w > text && w[-1] != ' ')
			w--;
		if (sscanf(w, "%63[a-z_]:[%*u]", word) != 1 || !strchr(w, ']'))
			continue;
		snprintf(word, sizeof(word), "%.*s", (int)(strchr(w, ']') - w + 1), w);
		for (i = 0; i < n && strcmp(seen[i], word); i++)
			;
		if (i == n && n < 16)
			snprintf(seen[n++], sizeof(seen[0]), "%s", word);
		snprintf(name, sizeof(name), "NEW.%d", i + 1);
		rename_word(text, size, word, name, false);
		p = text;
	}
}

static const char *find(const char *text, const char *key, size_t *len);

/*
 * A child in a user namespace of its own has a user keyring of its own,
 * new at each start: its serial becomes NEW.keyring.user.
 */
static void rename_new_user_keyring(char *text, size_t size)
{
	char from[32];
	const char *v;
	size_t len;

	v = find(text, "ns.user", &len);
	if (!v || strncmp(v, "NEW.", 4))
		return;
	v = find(text, "keyring.user", &len);
	if (!v || !len || len >= sizeof(from) || strspn(v, "0123456789") != len)
		return;
	snprintf(from, sizeof(from), "%.*s", (int)len, v);
	rename_word(text, size, from, "NEW.keyring.user", false);
}

/* What names the runner's own identities: "rename FROM TO" lines. */
static void report_identities(int ctl)
{
	char buf[512], *p;
	ssize_t n;
	int fd;

	dprintf(ctl, "rename %d RUNNER\n", getpid());
	for (size_t i = 0; i < FIDELITY_COUNT(fidelity_namespaces); i++) {
		const char *ns = fidelity_namespaces[i];
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
		n = readlink(path, buf, sizeof(buf) - 1);
		if (n > 0)
			dprintf(ctl, "rename %.*s RUNNER.ns.%s\n", (int)n, buf, ns);
	}
	for (size_t i = 0; i < FIDELITY_COUNT(fidelity_keyrings); i++) {
		long id = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
				  fidelity_keyrings[i].id, 0);

		if (id > 0)
			dprintf(ctl, "rename %ld RUNNER.keyring.%s\n", id,
				fidelity_keyrings[i].name);
	}
	/* The controlling terminal: field 7 of /proc/self/stat. */
	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n > 0 && (buf[n] = '\0', p = strrchr(buf, ')'))) {
		int tty = 0;

		if (sscanf(p + 1, " %*c %*d %*d %*d %d", &tty) == 1 && tty)
			dprintf(ctl, "rename %d RUNNER.tty\n", tty);
	}
}

/*
 * In a fresh runner: set up @sc, start the probe by @m with its stdout
 * on a pipe, reap it.  The runner reports on a second pipe what names
 * its identities, then "pid PID STATUS", "skip WHY" or "error WHY".
 */
static void run(const struct scenario *sc, const struct method *m,
		struct result *r)
{
	int out[2], ctl[2];
	char report[8192], *text, *line, *save;
	size_t len = 0, cap = 1 << 16, rlen = 0;
	pid_t runner, child = 0;
	ssize_t n;
	int status = -1;

	memset(r, 0, sizeof(*r));
	if (pipe2(out, O_CLOEXEC) || pipe2(ctl, O_CLOEXEC))
		abort();
	runner = fork();
	if (runner == 0) {
		int pidfd = -1, st, s;
		pid_t pid;

		close(out[0]);
		close(ctl[0]);
		s = sc->setup();
		if (s) {
			dprintf(ctl[1], s > 0 ? "skip %s\n" : "error setup failed\n",
				skip_why);
			_exit(0);
		}
		report_identities(ctl[1]);
		if (dup2(out[1], 1) < 0)
			_exit(1);
		close(out[1]);
		pid = m->spawn(&pidfd);
		/*
		 * make check KSERIES=N sets PIDSPAWN_PARTIAL_KERNEL: a way whose
		 * commands come in a later series is refused as unknown.
		 */
		if (pid == -EOPNOTSUPP && getenv("PIDSPAWN_PARTIAL_KERNEL")) {
			dprintf(ctl[1], "skip a command of this way is not in this kernel\n");
			_exit(0);
		}
		if (pid < 0) {
			dprintf(ctl[1], "error %s\n", strerror(-pid));
			_exit(0);
		}
		if (pidfd >= 0) {
			siginfo_t si = { 0 };

			if (waitid(P_PIDFD, pidfd, &si, WEXITED))
				st = -1;
			else
				st = si.si_code == CLD_EXITED ? si.si_status << 8 :
				     si.si_status;
		} else if (waitpid(pid, &st, 0) != pid) {
			st = -1;
		}
		dprintf(ctl[1], "pid %d %d\n", pid, st);
		_exit(0);
	}
	close(out[1]);
	close(ctl[1]);
	text = malloc(cap);
	while (text && (n = read(out[0], text + len, cap - len - 1)) > 0) {
		len += n;
		if (len + 1 == cap)
			text = realloc(text, cap *= 2);
	}
	close(out[0]);
	while ((n = read(ctl[0], report + rlen, sizeof(report) - rlen - 1)) > 0)
		rlen += n;
	report[rlen] = '\0';
	close(ctl[0]);
	waitpid(runner, NULL, 0);
	if (!text)
		abort();
	text[len] = '\0';
	/* Room for the renaming. */
	cap = len * 4 + 256;
	r->text = text = realloc(text, cap);
	snprintf(r->error, sizeof(r->error), "the runner died");
	for (line = strtok_r(report, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char from[256], to[64];

		if (sscanf(line, "rename %255s %63s", from, to) == 2) {
			rename_word(text, cap, from, to, !strcmp(to, "RUNNER"));
		} else if (!strncmp(line, "skip ", 5)) {
			r->skipped = true;
			snprintf(r->error, sizeof(r->error), "%s", line + 5);
		} else if (sscanf(line, "pid %d %d", &child, &status) == 2) {
			r->error[0] = '\0';
			if (status != 0)
				snprintf(r->error, sizeof(r->error),
					 "the probe ended with status %#x", status);
			snprintf(from, sizeof(from), "%d", child);
			rename_word(text, cap, from, "CHILD", true);
			rename_new_namespaces(text, cap);
			rename_new_user_keyring(text, cap);
		} else {
			snprintf(r->error, sizeof(r->error), "%s", line);
		}
	}
}

/* The value of @key's line in @text (up to the newline), or NULL. */
static const char *find(const char *text, const char *key, size_t *len)
{
	size_t k = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, key, k) && (p[k] == ' ' || p[k] == '\n' || !p[k])) {
			*len = p[k] == ' ' ? strcspn(p + k + 1, "\n") : 0;
			return p[k] == ' ' ? p + k + 1 : p + k;
		}
	return NULL;
}

static const struct intended *intended_for(const char *method, const char *key)
{
	for (const struct intended *i = intended; i->methods; i++)
		if (!strncmp(method, i->methods, strlen(i->methods)) &&
		    !strcmp(key, i->key))
			return i;
	return NULL;
}

/* Every line of @ref against @got: 0 if they agree, else how many differ. */
static int compare(const char *method, const char *ref, const char *got)
{
	int diffs = 0;

	for (const char *p = ref; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		char key[128];
		size_t klen = strcspn(p, " \n"), glen, vlen;
		const char *g, *r;

		if (klen >= sizeof(key))
			klen = sizeof(key) - 1;
		memcpy(key, p, klen);
		key[klen] = '\0';
		r = find(ref, key, &vlen);
		g = find(got, key, &glen);
		if (g && glen == vlen && !memcmp(g, r, glen))
			continue;
		if (intended_for(method, key))
			continue;
		printf("#   %s: fork+execve \"%.*s\", %s \"%.*s\"\n", key,
		       (int)vlen, r, method, g ? (int)glen : 6, g ? g : "(none)");
		diffs++;
	}
	/* Lines the reference does not have. */
	for (const char *p = got; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		char key[128];
		size_t klen = strcspn(p, " \n"), rlen;

		if (klen >= sizeof(key))
			klen = sizeof(key) - 1;
		memcpy(key, p, klen);
		key[klen] = '\0';
		if (!find(ref, key, &rlen) && !intended_for(method, key)) {
			printf("#   %s: only %s has it: \"%.*s\"\n", key, method,
			       (int)strcspn(p, "\n"), p);
			diffs++;
		}
	}
	return diffs;
}

/*
 * The reference shows each expected "key value" line: the value exactly,
 * or containing what follows a "~".
 */
static int check_expected(const struct scenario *sc, const char *ref)
{
	int missing = 0;

	for (size_t i = 0; i < FIDELITY_COUNT(sc->expect) && sc->expect[i]; i++) {
		const char *e = sc->expect[i], *want, *v;
		size_t klen = strcspn(e, " "), len;
		bool part = e[klen + 1] == '~';
		char key[128], value[512];

		snprintf(key, sizeof(key), "%.*s", (int)klen, e);
		want = e + klen + 1 + part;
		v = find(ref, key, &len);
		snprintf(value, sizeof(value), "%.*s", v ? (int)len : 6, v ? v : "(none)");
		if (!v || (part ? !strstr(value, want) : strcmp(value, want))) {
			printf("#   the reference shows \"%s %s\", expected \"%s\"\n",
			       key, value, e);
			missing++;
		}
	}
	return missing;
}

static int enter_userns(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	if (set_file("/proc/self/uid_map", map) ||
	    set_file("/proc/self/setgroups", "deny"))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", gid);
	return set_file("/proc/self/gid_map", map);
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	int n = 0, failed = 0, first = 1, kernel;
	char *slash;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--userns")) {
			if (enter_userns()) {
				printf("1..0 # SKIP no user namespace: %s\n", strerror(errno));
				return 0;
			}
		} else {
			only = argv[i];
		}
	}
	if (readlink("/proc/self/exe", probe, sizeof(probe) - 32) < 0)
		return 1;
	slash = strrchr(probe, '/');
	strcpy(slash + 1, "fidelity-probe");
	snprintf(dir, sizeof(dir), "%s/fidelity.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	chmod(dir, 0755);
	/* The probe's view of its environment must not depend on ours. */
	setenv("FIDELITY", "1", 1);

	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++)
		if (!only || !strcmp(only, scenarios[s].name))
			n += sizeof(methods) / sizeof(methods[0]);
	kernel = pidspawn_create(0);
	if (kernel >= 0)
		close(kernel);
	printf("1..%d\n", n);
	printf("# uid %d, libpidspawn backend %s\n", getuid(),
	       pidspawn_backend() == PIDSPAWN_NATIVE ? "native" : "fallback");
	n = 0;
	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct scenario *sc = &scenarios[s];
		struct result ref, got;
		char why[300] = "";

		if (only && strcmp(only, sc->name))
			continue;
		run(sc, &methods[0], &ref);
		if (ref.skipped)
			snprintf(why, sizeof(why), "%s", ref.error);
		if (!ref.skipped && first) {
			/* The list of what is compared, once. */
			printf("# attributes compared:");
			for (const char *p = ref.text; *p; p = strchr(p, '\n') + 1) {
				printf(" %.*s", (int)strcspn(p, " \n"), p);
				if (!strchr(p, '\n'))
					break;
			}
			printf("\n");
			first = 0;
		}
		printf("# scenario %s\n", sc->name);
		for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
			const struct method *m = &methods[i];
			int diffs;

			n++;
			if (why[0] || (m->needs_kernel && kernel < 0)) {
				printf("ok %d %s/%s # SKIP %s\n", n, sc->name, m->name,
				       why[0] ? why : "no empty processes in this kernel");
				continue;
			}
			if ((sc->setup == setup_launch || sc->setup == setup_launch_namespaces ||
			     sc->setup == setup_launch_identity) && !m->launch) {
				printf("ok %d %s/%s # SKIP posix_spawn() has no attribute for these\n",
				       n, sc->name, m->name);
				continue;
			}
			if (ref.error[0]) {
				printf("not ok %d %s/%s\n#   fork+execve: %s\n", n,
				       sc->name, m->name, ref.error);
				failed++;
				continue;
			}
			if (i == 0) {
				diffs = check_expected(sc, ref.text);
				printf("%s %d %s/%s\n", diffs ? "not ok" : "ok", n,
				       sc->name, m->name);
				failed += !!diffs;
				continue;
			}
			run(sc, m, &got);
			if (got.skipped) {
				printf("ok %d %s/%s # SKIP %s\n", n, sc->name, m->name,
				       got.error);
			} else if (got.error[0]) {
				printf("not ok %d %s/%s\n#   %s\n", n, sc->name, m->name,
				       got.error);
				failed++;
			} else {
				diffs = compare(m->name, ref.text, got.text);
				printf("%s %d %s/%s\n", diffs ? "not ok" : "ok", n,
				       sc->name, m->name);
				failed += !!diffs;
			}
			free(got.text);
		}
		free(ref.text);
	}
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			failed++;
	}
	return failed ? 1 : 0;
}
