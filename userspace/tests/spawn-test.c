// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_spawn semantics, as TAP.  Built twice from this one source:
 * against libpidspawn (WITH_PIDSPAWN) and against plain glibc, the
 * reference; the expectations are glibc 2.36's, so any difference shows.
 *
 * After every test: no child may be left (waitid(P_ALL, WNOHANG) gives
 * ECHILD) and the caller's fds must be as before.  Tests for the kernel's
 * own API skip without pidfd_config(); with PIDSPAWN_BACKEND=native on a
 * kernel without it every test skips.  Tests that need root skip
 * without it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <gnu/libc-version.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#ifdef WITH_PIDSPAWN
#include "pidspawn.h"
/* The commands; <linux/pidfd.h> wants <linux/fcntl.h>, which clashes with <fcntl.h>. */
#define _LINUX_FCNTL_H
#include <linux/pidfd.h>
#endif
#include "tap.h"

extern char **environ;

static char probe_path[PATH_MAX], out[512];
static char rep[65536];
static int status;
static int native __attribute__((unused));

#define NEED_ROOT() do { if (geteuid()) SKIP("needs root"); } while (0)
#ifdef WITH_PIDSPAWN
#define NEED_LIB() do { } while (0)
#else
#define NEED_LIB() SKIP("libpidspawn only (glibc 2.36 lacks it)")
#endif
#define NEED_NATIVE() do { NEED_LIB(); if (!native) \
	SKIP("pidfd_config() missing"); } while (0)
/* The posix_spawn family on pidfd_config(), not the forced fallback. */
#define NEED_NATIVE_BACKEND() do { NEED_NATIVE(); \
	if (pidspawn_backend() != PIDSPAWN_NATIVE) \
		SKIP("the fallback backend is forced"); } while (0)

/* The report's value for @key, or NULL. */
static const char *get(const char *key)
{
	static char val[4096];
	size_t k = strlen(key);

	for (const char *p = rep; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, key, k) && p[k] == '=') {
			size_t n = strcspn(p + k + 1, "\n");

			snprintf(val, sizeof(val), "%.*s", (int)n, p + k + 1);
			return val;
		}
		if (!strchr(p, '\n'))
			break;
	}
	return NULL;
}

static unsigned long long hex(const char *key)
{
	const char *v = get(key);

	return v ? strtoull(v, NULL, 16) : ~0ULL;
}

static int has_fd(int fd)
{
	char want[16];
	const char *fds = get("fds");

	snprintf(want, sizeof(want), " %d ", fd);
	if (!fds)
		return -1;
	char list[4200];
	snprintf(list, sizeof(list), "%s ", fds);
	return strstr(list, want) != NULL;
}

static int read_report(void)
{
	int fd = open(out, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	rep[0] = '\0';
	if (fd < 0)
		return -1;
	n = read(fd, rep, sizeof(rep) - 1);
	close(fd);
	rep[n > 0 ? n : 0] = '\0';
	unlink(out);
	return 0;
}

static char *probe_argv[] = { "spawn-probe", out, NULL, NULL };

/*
 * Spawn @path (the probe by default) with @fa, @attr and @env (environ by
 * default), wait for it, read its report.  Returns the spawn's result.
 */
static int run(int use_path, const char *path,
	       const posix_spawn_file_actions_t *fa,
	       const posix_spawnattr_t *attr, char *const *argv,
	       char *const *env)
{
	pid_t pid = -42;
	int err;

	unlink(out);
	rep[0] = '\0';
	status = -1;
	err = (use_path ? posix_spawnp : posix_spawn)(&pid, path ? path :
		probe_path, fa, attr, argv ? argv : probe_argv,
		env ? env : environ);
	if (err) {
		if (pid != -42)
			return -1000;	/* *pid written on failure */
		return err;
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1001;
	read_report();
	if (get("pid") && atoi(get("pid")) != pid)
		return -1002;
	return 0;
}

#define PROBE(fa, attr) run(0, NULL, fa, attr, NULL, NULL)

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror("write");
		close(fd);
	}
	chmod(path, mode);
}

/* ---- the objects ---- */

static int t_sizes(void)
{
	CHECK_EQ(sizeof(posix_spawn_file_actions_t), 80);
	CHECK_EQ(sizeof(posix_spawnattr_t), 336);
	CHECK_EQ(POSIX_SPAWN_RESETIDS, 0x01);
	CHECK_EQ(POSIX_SPAWN_SETPGROUP, 0x02);
	CHECK_EQ(POSIX_SPAWN_SETSIGDEF, 0x04);
	CHECK_EQ(POSIX_SPAWN_SETSIGMASK, 0x08);
	CHECK_EQ(POSIX_SPAWN_SETSCHEDPARAM, 0x10);
	CHECK_EQ(POSIX_SPAWN_SETSCHEDULER, 0x20);
	CHECK_EQ(POSIX_SPAWN_USEVFORK, 0x40);
	CHECK_EQ(POSIX_SPAWN_SETSID, 0x80);
#ifdef WITH_PIDSPAWN
	CHECK_EQ(POSIX_SPAWN_SETCGROUP, 0x100);
#endif
	return PASS;
}

static int t_attr_defaults(void)
{
	posix_spawnattr_t at;
	struct sched_param sp = { .sched_priority = 9 };
	sigset_t s, empty;
	short fl = -1;
	pid_t pg = -1;
	int pol = -1;

	memset(&at, 0xff, sizeof(at));
	CHECK_EQ(posix_spawnattr_init(&at), 0);
	/* sigemptyset() clears only the signals glibc knows, not all 128 bytes. */
	memset(&empty, 0, sizeof(empty));
	sigemptyset(&empty);
	CHECK_EQ(posix_spawnattr_getflags(&at, &fl), 0);
	CHECK_EQ(fl, 0);
	CHECK_EQ(posix_spawnattr_getpgroup(&at, &pg), 0);
	CHECK_EQ(pg, 0);
	CHECK_EQ(posix_spawnattr_getsigmask(&at, &s), 0);
	CHECK(!memcmp(&s, &empty, sizeof(s)));
	CHECK_EQ(posix_spawnattr_getsigdefault(&at, &s), 0);
	CHECK(!memcmp(&s, &empty, sizeof(s)));
	CHECK_EQ(posix_spawnattr_getschedpolicy(&at, &pol), 0);
	CHECK_EQ(pol, SCHED_OTHER);
	CHECK_EQ(posix_spawnattr_getschedparam(&at, &sp), 0);
	CHECK_EQ(sp.sched_priority, 0);
	CHECK_EQ(posix_spawnattr_destroy(&at), 0);
	return PASS;
}

static int t_attr_flags(void)
{
	static const short valid[] = { 0, 1, 2, 4, 8, 0x10, 0x20, 0x40, 0x80,
				       0xff };
	posix_spawnattr_t at;
	short fl;

	posix_spawnattr_init(&at);
	for (unsigned int i = 0; i < sizeof(valid) / sizeof(*valid); i++) {
		CHECK_EQ(posix_spawnattr_setflags(&at, valid[i]), 0);
		CHECK_EQ(posix_spawnattr_getflags(&at, &fl), 0);
		CHECK_EQ(fl, valid[i]);
	}
	CHECK_EQ(posix_spawnattr_setflags(&at, 0x200), EINVAL);
	CHECK_EQ(posix_spawnattr_setflags(&at, -1), EINVAL);
	CHECK_EQ(posix_spawnattr_getflags(&at, &fl), 0);
	CHECK_EQ(fl, 0xff);
	/* POSIX_SPAWN_SETCGROUP is glibc 2.39's; 2.36 rejects it. */
#ifdef WITH_PIDSPAWN
	CHECK_EQ(posix_spawnattr_setflags(&at, 0x100), 0);
#else
	CHECK_EQ(posix_spawnattr_setflags(&at, 0x100), EINVAL);
#endif
	posix_spawnattr_destroy(&at);
	return PASS;
}

static int t_attr_roundtrip(void)
{
	posix_spawnattr_t at;
	struct sched_param sp = { .sched_priority = 7 }, sp2;
	sigset_t s, s2;
	pid_t pg;

	posix_spawnattr_init(&at);
	CHECK_EQ(posix_spawnattr_setpgroup(&at, 1234), 0);
	CHECK_EQ(posix_spawnattr_getpgroup(&at, &pg), 0);
	CHECK_EQ(pg, 1234);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGRTMAX);
	CHECK_EQ(posix_spawnattr_setsigmask(&at, &s), 0);
	CHECK_EQ(posix_spawnattr_getsigmask(&at, &s2), 0);
	CHECK(!memcmp(&s, &s2, sizeof(s)));
	sigaddset(&s, SIGHUP);
	CHECK_EQ(posix_spawnattr_setsigdefault(&at, &s), 0);
	CHECK_EQ(posix_spawnattr_getsigdefault(&at, &s2), 0);
	CHECK(!memcmp(&s, &s2, sizeof(s)));
	CHECK_EQ(posix_spawnattr_setschedparam(&at, &sp), 0);
	CHECK_EQ(posix_spawnattr_getschedparam(&at, &sp2), 0);
	CHECK_EQ(sp2.sched_priority, 7);
#ifdef WITH_PIDSPAWN
	int cg = -1;
	CHECK_EQ(posix_spawnattr_getcgroup_np(&at, &cg), 0);
	CHECK_EQ(cg, 0);
	CHECK_EQ(posix_spawnattr_setcgroup_np(&at, 42), 0);
	CHECK_EQ(posix_spawnattr_getcgroup_np(&at, &cg), 0);
	CHECK_EQ(cg, 42);
#endif
	posix_spawnattr_destroy(&at);
	return PASS;
}

static int t_attr_policy(void)
{
	posix_spawnattr_t at;
	int pol;

	posix_spawnattr_init(&at);
	CHECK_EQ(posix_spawnattr_setschedpolicy(&at, SCHED_FIFO), 0);
	CHECK_EQ(posix_spawnattr_setschedpolicy(&at, SCHED_RR), 0);
	CHECK_EQ(posix_spawnattr_setschedpolicy(&at, SCHED_OTHER), 0);
	CHECK_EQ(posix_spawnattr_setschedpolicy(&at, SCHED_FIFO), 0);
	/* glibc accepts only the three POSIX policies. */
	CHECK_EQ(posix_spawnattr_setschedpolicy(&at, SCHED_BATCH), EINVAL);
	CHECK_EQ(posix_spawnattr_setschedpolicy(&at, SCHED_IDLE), EINVAL);
	CHECK_EQ(posix_spawnattr_setschedpolicy(&at, -1), EINVAL);
	CHECK_EQ(posix_spawnattr_setschedpolicy(&at, 7), EINVAL);
	CHECK_EQ(posix_spawnattr_getschedpolicy(&at, &pol), 0);
	CHECK_EQ(pol, SCHED_FIFO);
	return PASS;
}

static int t_fa_bad_fds(void)
{
	posix_spawn_file_actions_t fa;
	int max = getdtablesize();

	posix_spawn_file_actions_init(&fa);
	CHECK_EQ(posix_spawn_file_actions_addclose(&fa, -1), EBADF);
	CHECK_EQ(posix_spawn_file_actions_addclose(&fa, max), EBADF);
	CHECK_EQ(posix_spawn_file_actions_addopen(&fa, -1, "/", O_RDONLY, 0), EBADF);
	CHECK_EQ(posix_spawn_file_actions_addopen(&fa, max, "/", O_RDONLY, 0), EBADF);
	CHECK_EQ(posix_spawn_file_actions_adddup2(&fa, -1, 1), EBADF);
	CHECK_EQ(posix_spawn_file_actions_adddup2(&fa, 1, -1), EBADF);
	CHECK_EQ(posix_spawn_file_actions_adddup2(&fa, 1, max), EBADF);
	CHECK_EQ(posix_spawn_file_actions_adddup2(&fa, max, 1), EBADF);
	CHECK_EQ(posix_spawn_file_actions_addclosefrom_np(&fa, -1), EBADF);
	CHECK_EQ(posix_spawn_file_actions_addclosefrom_np(&fa, max), EBADF);
	CHECK_EQ(posix_spawn_file_actions_addtcsetpgrp_np(&fa, -1), EBADF);
	CHECK_EQ(posix_spawn_file_actions_addtcsetpgrp_np(&fa, max), EBADF);
	CHECK_EQ(posix_spawn_file_actions_addclose(&fa, max - 1), 0);
	CHECK_EQ(posix_spawn_file_actions_destroy(&fa), 0);
	return PASS;
}

static int t_fa_many(void)
{
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	for (int i = 0; i < 200; i++) {
		CHECK_EQ(posix_spawn_file_actions_addclose(&fa, 300 + i), 0);
		CHECK_EQ(posix_spawn_file_actions_addopen(&fa, 600 + i,
			 "/dev/null", O_RDONLY, 0), 0);
	}
	CHECK_EQ(PROBE(&fa, NULL), 0);
	CHECK(has_fd(799) == 1);
	CHECK(has_fd(600) == 1);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_path_copied(void)
{
	posix_spawn_file_actions_t fa;
	char path[64] = "/dev/null";

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 5, path, O_RDONLY, 0);
	strcpy(path, "/nonexistent");
	CHECK_EQ(PROBE(&fa, NULL), 0);
	CHECK_STR(get("fd5"), "/dev/null");
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

/* ---- spawning ---- */

static int t_basic(void)
{
	pid_t pid = -42;

	CHECK_EQ(posix_spawn(&pid, probe_path, NULL, NULL, probe_argv,
			     environ), 0);
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	read_report();
	CHECK_EQ(atoi(get("pid")), pid);
	CHECK_EQ(atoi(get("ppid")), getpid());
	CHECK_EQ(atoi(get("pgid")), getpgrp());
	CHECK_EQ(atoi(get("sid")), getsid(0));
	return PASS;
}

static int t_argv_envp(void)
{
	char *argv[] = { "zeroth", out, "0", "", "two words", NULL };
	char *env[] = { "A=1", "EMPTY=", "NOEQUALS", "A=2", NULL };

	CHECK_EQ(run(0, NULL, NULL, NULL, argv, env), 0);
	CHECK_STR(get("argc"), "5");
	CHECK_STR(get("argv0"), "zeroth");
	CHECK_STR(get("argv3"), "");
	CHECK_STR(get("argv4"), "two words");
	CHECK_STR(get("envc"), "4");
	CHECK_STR(get("env0"), "A=1");
	CHECK_STR(get("env1"), "EMPTY=");
	CHECK_STR(get("env2"), "NOEQUALS");
	CHECK_STR(get("env3"), "A=2");
	return PASS;
}

static int t_empty_env(void)
{
	char *env[] = { NULL };

	CHECK_EQ(run(0, NULL, NULL, NULL, NULL, env), 0);
	CHECK_STR(get("envc"), "0");
	return PASS;
}

static int t_pid_null(void)
{
	char *argv[] = { "true", NULL };

	CHECK_EQ(posix_spawn(NULL, "/bin/true", NULL, NULL, argv, environ), 0);
	CHECK(wait(&status) > 0);
	CHECK_EQ(status, 0);
	return PASS;
}

static int t_exit_status(void)
{
	char *argv[] = { "spawn-probe", out, "3", NULL };

	CHECK_EQ(run(0, NULL, NULL, NULL, argv, NULL), 0);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 3);
	return PASS;
}

static int t_enoent(void)
{
	CHECK_EQ(run(0, tpath("nonexistent"), NULL, NULL, NULL, NULL), ENOENT);
	CHECK_EQ(run(0, "", NULL, NULL, NULL, NULL), ENOENT);
	return PASS;
}

static int t_eacces(void)
{
	write_file(tpath("noexec"), "#!/bin/sh\n", 0644);
	CHECK_EQ(run(0, tpath("noexec"), NULL, NULL, NULL, NULL), EACCES);
	CHECK_EQ(run(0, tmp, NULL, NULL, NULL, NULL), EACCES);
	return PASS;
}

static int t_enoexec(void)
{
	/* No /bin/sh retry, unlike execvp() and glibc < 2.15. */
	write_file(tpath("garbage"), "echo hello\n", 0755);
	CHECK_EQ(run(0, tpath("garbage"), NULL, NULL, NULL, NULL), ENOEXEC);
	return PASS;
}

static int t_enotdir(void)
{
	CHECK_EQ(run(0, "/etc/passwd/x", NULL, NULL, NULL, NULL), ENOTDIR);
	return PASS;
}

static int t_script(void)
{
	char *argv[] = { "script", "x", NULL };

	write_file(tpath("script"), "#!/bin/sh\nexit 7\n", 0755);
	CHECK_EQ(run(0, tpath("script"), NULL, NULL, argv, NULL), 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	write_file(tpath("badinterp"), "#!/nonexistent/sh\n", 0755);
	CHECK_EQ(run(0, tpath("badinterp"), NULL, NULL, argv, NULL), ENOENT);
	return PASS;
}

static int t_e2big(void)
{
	static char *argv[4096];
	char *big = malloc(4096);

	memset(big, 'x', 4095);
	big[4095] = '\0';
	argv[0] = "true";
	for (int i = 1; i < 4095; i++)
		argv[i] = big;	/* 16 MiB, four times ARG_MAX's share */
	CHECK_EQ(run(0, "/bin/true", NULL, NULL, argv, NULL), E2BIG);
	free(big);
	return PASS;
}

/* ---- file actions ---- */

static int t_fa_order(void)
{
	posix_spawn_file_actions_t fa;

	write_file(tpath("a"), "a", 0644);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 30, tpath("a"), O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 30, 31);
	posix_spawn_file_actions_addclose(&fa, 30);
	posix_spawn_file_actions_addopen(&fa, 32, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 32, 31);
	posix_spawn_file_actions_addopen(&fa, 32, tpath("a"), O_RDONLY, 0);
	CHECK_EQ(PROBE(&fa, NULL), 0);
	CHECK_EQ(has_fd(30), 0);
	CHECK_STR(get("fd31"), "/dev/null");
	CHECK_STR(get("fd32"), tpath("a"));
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_open_replaces(void)
{
	posix_spawn_file_actions_t fa;
	int fd = open("/dev/zero", O_RDONLY), err;

	dup2(fd, 40);
	close(fd);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 40, "/dev/null", O_RDONLY, 0);
	err = PROBE(&fa, NULL);
	close(40);
	CHECK_EQ(err, 0);
	CHECK_STR(get("fd40"), "/dev/null");
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_open_creat(void)
{
	posix_spawn_file_actions_t fa;
	struct stat st;
	mode_t old = umask(022);
	int err;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 33, tpath("created"),
		O_WRONLY | O_CREAT | O_EXCL, 0666);
	/* open(2) ignores a mode without O_CREAT and unknown flags. */
	posix_spawn_file_actions_addopen(&fa, 34, "/dev/null", O_RDONLY, 0777);
	posix_spawn_file_actions_addopen(&fa, 35, "/dev/null",
					 O_RDONLY | 0x40000000, 0);
	posix_spawn_file_actions_addopen(&fa, 36, "/dev/null", O_RDONLY, 070777);
	err = PROBE(&fa, NULL);
	umask(old);
	CHECK_EQ(err, 0);
	CHECK_EQ(stat(tpath("created"), &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0644);
	CHECK_STR(get("fd33"), tpath("created"));
	CHECK_STR(get("fd36"), "/dev/null");
	/* O_EXCL on a file that is there now. */
	CHECK_EQ(PROBE(&fa, NULL), EEXIST);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_open_enoent(void)
{
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 3, tpath("missing"), O_RDONLY, 0);
	CHECK_EQ(PROBE(&fa, NULL), ENOENT);
	/* A file action's error comes before the executable's. */
	CHECK_EQ(run(0, tpath("nonexistent"), &fa, NULL, NULL, NULL), ENOENT);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 3, "/etc/passwd/x", O_RDONLY, 0);
	CHECK_EQ(run(0, tpath("nonexistent"), &fa, NULL, NULL, NULL), ENOTDIR);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_open_cloexec(void)
{
	posix_spawn_file_actions_t fa;
	int low = lowest_free();

	/*
	 * glibc opens at the lowest free fd and dup2()s to the one asked
	 * for: O_CLOEXEC holds only if that is the same fd.
	 */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, low, "/dev/null",
					 O_RDONLY | O_CLOEXEC, 0);
	posix_spawn_file_actions_addopen(&fa, 50, "/dev/null",
					 O_RDONLY | O_CLOEXEC, 0);
	CHECK_EQ(PROBE(&fa, NULL), 0);
	CHECK_EQ(has_fd(low), 0);
	CHECK_EQ(has_fd(50), 1);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_dup2_self(void)
{
	posix_spawn_file_actions_t fa;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), err;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, fd);
	err = PROBE(&fa, NULL);
	CHECK_EQ(err, 0);
	CHECK_EQ(has_fd(fd), 1);
	/* And without the action, O_CLOEXEC holds. */
	CHECK_EQ(PROBE(NULL, NULL), 0);
	CHECK_EQ(has_fd(fd), 0);
	/* The caller's flag is untouched. */
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	close(fd);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_dup2_ebadf(void)
{
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 60, 61);
	CHECK_EQ(PROBE(&fa, NULL), EBADF);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 60, 60);
	CHECK_EQ(PROBE(&fa, NULL), EBADF);
	posix_spawn_file_actions_destroy(&fa);
	/* Closed by an earlier action. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, 2);
	posix_spawn_file_actions_adddup2(&fa, 2, 61);
	CHECK_EQ(PROBE(&fa, NULL), EBADF);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_close(void)
{
	posix_spawn_file_actions_t fa;
	int fd = open("/dev/null", O_RDONLY);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, 70);	/* not open: fine */
	posix_spawn_file_actions_addclose(&fa, fd);
	CHECK_EQ(PROBE(&fa, NULL), 0);
	CHECK_EQ(has_fd(fd), 0);
	close(fd);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_close_rlimit(void)
{
	posix_spawn_file_actions_t below, at, beyond;
	struct rlimit rl, low;
	int e1, e2, e3;

	/*
	 * glibc fails closing a closed fd only from a lowered RLIMIT_NOFILE
	 * up: the library sends close_range() of the fd below it (the
	 * kernel's ACT_CLOSE fails on any closed fd), ACT_CLOSE from it up.
	 */
	posix_spawn_file_actions_init(&below);
	posix_spawn_file_actions_addclose(&below, 399);
	posix_spawn_file_actions_init(&at);
	posix_spawn_file_actions_addclose(&at, 400);
	posix_spawn_file_actions_init(&beyond);
	posix_spawn_file_actions_addclose(&beyond, 500);
	getrlimit(RLIMIT_NOFILE, &rl);
	low = rl;
	low.rlim_cur = 400;
	setrlimit(RLIMIT_NOFILE, &low);
	e1 = PROBE(&below, NULL);
	e2 = PROBE(&at, NULL);
	e3 = PROBE(&beyond, NULL);
	setrlimit(RLIMIT_NOFILE, &rl);
	posix_spawn_file_actions_destroy(&below);
	posix_spawn_file_actions_destroy(&at);
	posix_spawn_file_actions_destroy(&beyond);
	CHECK_EQ(e1, 0);
	CHECK_EQ(e2, EBADF);
	CHECK_EQ(e3, EBADF);
	return PASS;
}

/* The caller's fds without FD_CLOEXEC, as the probe lists them. */
static void inheritable(char *buf, size_t size)
{
	buf[0] = '\0';
	for (int fd = 0; fd < 1024; fd++) {
		int fl = fcntl(fd, F_GETFD);

		if (fl >= 0 && !(fl & FD_CLOEXEC))
			snprintf(buf + strlen(buf), size - strlen(buf), " %d", fd);
	}
}

static int t_fds_inherited(void)
{
	int keep = open("/dev/null", O_RDONLY);
	int drop = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char want[1024];

	inheritable(want, sizeof(want));
	CHECK_EQ(PROBE(NULL, NULL), 0);
	/* Exactly the caller's: nothing of the library's. */
	CHECK_STR(get("fds"), want);
	CHECK_EQ(has_fd(keep), 1);
	CHECK_EQ(has_fd(drop), 0);
	close(keep);
	close(drop);
	return PASS;
}

static int t_fa_chdir(void)
{
	posix_spawn_file_actions_t fa;

	mkdir(tpath("d"), 0755);
	write_file(tpath("d/file"), "x", 0644);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, tpath("d"));
	posix_spawn_file_actions_addopen(&fa, 3, "file", O_RDONLY, 0);
	CHECK_EQ(PROBE(&fa, NULL), 0);
	CHECK_STR(get("cwd"), tpath("d"));
	CHECK_STR(get("fd3"), tpath("d/file"));
	posix_spawn_file_actions_addchdir_np(&fa, "missing");
	CHECK_EQ(PROBE(&fa, NULL), ENOENT);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_chdir_exec(void)
{
	posix_spawn_file_actions_t fa;
	char cwd[PATH_MAX], dir[PATH_MAX];
	int err1, err2;

	/* A relative executable is found from the child's new directory. */
	snprintf(dir, sizeof(dir), "%s", probe_path);
	*strrchr(dir, '/') = '\0';
	if (!getcwd(cwd, sizeof(cwd)))
		return FAIL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (chdir(tmp))
		return FAIL;
	err1 = run(0, "./spawn-probe", &fa, NULL, NULL, NULL);
	char cwd1[PATH_MAX];
	snprintf(cwd1, sizeof(cwd1), "%s", get("cwd") ? get("cwd") : "");
	posix_spawn_file_actions_destroy(&fa);
	/* And not from ours. */
	symlink(probe_path, tpath("here"));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, "/");
	err2 = run(0, "here", &fa, NULL, NULL, NULL);
	posix_spawn_file_actions_destroy(&fa);
	if (chdir(cwd))
		return FAIL;
	CHECK_EQ(err1, 0);
	CHECK_STR(cwd1, dir);
	CHECK_EQ(err2, ENOENT);
	return PASS;
}

static int t_fa_fchdir(void)
{
	posix_spawn_file_actions_t fa;
	int dfd = open("/usr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addfchdir_np(&fa, dfd);
	CHECK_EQ(PROBE(&fa, NULL), 0);
	CHECK_STR(get("cwd"), "/usr");
	CHECK_EQ(has_fd(dfd), 0);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addfchdir_np(&fa, 80);	/* not open */
	CHECK_EQ(PROBE(&fa, NULL), EBADF);
	posix_spawn_file_actions_destroy(&fa);
	/* glibc 2.36 takes any fd here; the spawn fails. */
	posix_spawn_file_actions_init(&fa);
	CHECK_EQ(posix_spawn_file_actions_addfchdir_np(&fa, -1), 0);
	CHECK_EQ(PROBE(&fa, NULL), EBADF);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawn_file_actions_init(&fa);
	CHECK_EQ(posix_spawn_file_actions_addfchdir_np(&fa, getdtablesize()), 0);
	CHECK_EQ(PROBE(&fa, NULL), EBADF);
	posix_spawn_file_actions_destroy(&fa);
	/* A file is no directory. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 81, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addfchdir_np(&fa, 81);
	CHECK_EQ(PROBE(&fa, NULL), ENOTDIR);
	posix_spawn_file_actions_destroy(&fa);
	close(dfd);
	return PASS;
}

static int t_fa_closefrom(void)
{
	posix_spawn_file_actions_t fa;
	int fd = open("/dev/null", O_RDONLY);

	dup2(fd, 90);
	dup2(fd, 91);
	dup2(fd, 95);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclosefrom_np(&fa, 91);
	posix_spawn_file_actions_addopen(&fa, 92, "/dev/null", O_RDONLY, 0);
	CHECK_EQ(PROBE(&fa, NULL), 0);
	CHECK_EQ(has_fd(90), 1);
	CHECK_EQ(has_fd(91), 0);
	CHECK_EQ(has_fd(92), 1);
	CHECK_EQ(has_fd(95), 0);
	CHECK_EQ(has_fd(1), 1);
	close(90);
	close(91);
	close(95);
	close(fd);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

static int t_fa_tcsetpgrp(void)
{
	posix_spawn_file_actions_t fa;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addtcsetpgrp_np(&fa, fd);
	CHECK_EQ(PROBE(&fa, NULL), ENOTTY);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	return PASS;
}

/* ---- signals ---- */

#define BIT(sig) (1ULL << ((sig) - 1))

static void handler(int sig)
{
	(void)sig;
}

static int t_sig_mask(void)
{
	posix_spawnattr_t at;
	sigset_t s, old, now;
	int err1, err2, err3;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, &old);
	err1 = PROBE(NULL, NULL);
	unsigned long long inherited = hex("sigBlk");
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGRTMIN + 1);
	posix_spawnattr_setsigmask(&at, &s);
	err2 = PROBE(NULL, &at);
	unsigned long long set = hex("sigBlk");
	sigemptyset(&s);
	posix_spawnattr_setsigmask(&at, &s);
	err3 = PROBE(NULL, &at);
	sigprocmask(SIG_SETMASK, &old, &now);
	CHECK_EQ(err1, 0);
	CHECK_EQ(inherited, BIT(SIGUSR1));
	CHECK_EQ(err2, 0);
	CHECK_EQ(set, BIT(SIGUSR2) | BIT(SIGTERM) | BIT(SIGRTMIN + 1));
	CHECK_EQ(err3, 0);
	CHECK_EQ(hex("sigBlk"), 0);
	/* The caller's mask is as it was. */
	CHECK(sigismember(&now, SIGUSR1) == 1 && sigismember(&now, SIGUSR2) == 0);
	posix_spawnattr_destroy(&at);
	return PASS;
}

static int t_sig_default(void)
{
	posix_spawnattr_t at;
	struct sigaction sa = { .sa_handler = handler }, old1, old2, now;
	sigset_t s;
	int err1, err2;

	sigaction(SIGUSR1, &sa, &old1);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR2, &sa, &old2);
	sigaction(SIGPIPE, &sa, NULL);
	err1 = PROBE(NULL, NULL);
	unsigned long long ign1 = hex("sigIgn"), cgt1 = hex("sigCgt");
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	sigaddset(&s, SIGKILL);		/* ignored by glibc, harmless */
	posix_spawnattr_setsigdefault(&at, &s);
	err2 = PROBE(NULL, &at);
	unsigned long long ign2 = hex("sigIgn");
	sigaction(SIGUSR1, NULL, &now);
	sigaction(SIGUSR1, &old1, NULL);
	sigaction(SIGUSR2, &old2, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGPIPE, &sa, NULL);
	CHECK_EQ(err1, 0);
	/* Ignored stays ignored, a handler becomes the default. */
	CHECK_EQ(ign1 & 0x7fffffffULL, BIT(SIGUSR2) | BIT(SIGPIPE));
	CHECK_EQ(cgt1, 0);
	CHECK_EQ(err2, 0);
	CHECK_EQ(ign2 & 0x7fffffffULL, BIT(SIGPIPE));
	/* The caller keeps its handler. */
	CHECK(now.sa_handler == handler);
	posix_spawnattr_destroy(&at);
	return PASS;
}

/* Our own ignored signals, from /proc: glibc hides 32 and 33 from sigaction(). */
static unsigned long long own_sigign(void)
{
	unsigned long long mask = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigIgn:", 7))
			mask = strtoull(line + 7, NULL, 16);
	if (f)
		fclose(f);
	return mask;
}

static int t_sig_glibc_internal(void)
{
	int fallback = 1;

#ifdef WITH_PIDSPAWN
	fallback = pidspawn_backend() == PIDSPAWN_FALLBACK;
#endif
	CHECK_EQ(PROBE(NULL, NULL), 0);
	/*
	 * glibc 2.36's child sets its two internal signals (32, 33) to
	 * SIG_IGN, which exec keeps; the fallback does the same.  The
	 * native child keeps our disposition, as later glibc releases do
	 * (clone3 with CLONE_CLEAR_SIGHAND): ignored only if we were
	 * started ignoring them, by GNU make's posix_spawn() for one.
	 */
	CHECK_EQ(hex("sigIgn") >> 31 & 3, fallback ? 3 : own_sigign() >> 31 & 3);
	return PASS;
}

/* ---- attributes ---- */

static int spawn_flags(short flags, pid_t pgrp)
{
	posix_spawnattr_t at;
	int err;

	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, flags);
	posix_spawnattr_setpgroup(&at, pgrp);
	err = PROBE(NULL, &at);
	posix_spawnattr_destroy(&at);
	return err;
}

static int t_setpgroup(void)
{
	CHECK_EQ(spawn_flags(POSIX_SPAWN_SETPGROUP, 0), 0);
	CHECK_EQ(atoi(get("pgid")), atoi(get("pid")));
	CHECK_EQ(atoi(get("sid")), getsid(0));
	CHECK_EQ(spawn_flags(POSIX_SPAWN_SETPGROUP, getpgrp()), 0);
	CHECK_EQ(atoi(get("pgid")), getpgrp());
	/* A group that does not exist in our session. */
	CHECK_EQ(spawn_flags(POSIX_SPAWN_SETPGROUP, 0x3ffffff0), EPERM);
	CHECK_EQ(spawn_flags(POSIX_SPAWN_SETPGROUP, -1), EINVAL);
	/* Without the flag the group is ignored. */
	CHECK_EQ(spawn_flags(0, 0x3ffffff0), 0);
	return PASS;
}

static int t_setsid(void)
{
	CHECK_EQ(spawn_flags(POSIX_SPAWN_SETSID, 0), 0);
	CHECK_EQ(atoi(get("sid")), atoi(get("pid")));
	CHECK_EQ(atoi(get("pgid")), atoi(get("pid")));
	/* setsid() first, then setpgid() on a session leader fails. */
	CHECK_EQ(spawn_flags(POSIX_SPAWN_SETSID | POSIX_SPAWN_SETPGROUP, 0),
		 EPERM);
	return PASS;
}

static int t_usevfork(void)
{
	CHECK_EQ(spawn_flags(POSIX_SPAWN_USEVFORK, 0), 0);
	return PASS;
}

/*
 * Copies the probe to @dst, mode 0755: where uid 65534 can run it even when
 * the checkout lies under a directory only root may enter, as /root is.
 */
static int copy_probe(const char *dst)
{
	char buf[1 << 16];
	int in, outfd, ok = 1;
	ssize_t n;

	in = open(probe_path, O_RDONLY | O_CLOEXEC);
	outfd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	while (ok && in >= 0 && outfd >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(outfd, buf, n) == n;
	ok = ok && in >= 0 && outfd >= 0 && n == 0;
	if (in >= 0)
		close(in);
	if (outfd >= 0)
		close(outfd);
	return ok ? 0 : -1;
}

static int t_resetids(void)
{
	char saved[PATH_MAX], euid1[16];
	int err1, err2;

	NEED_ROOT();
	snprintf(saved, sizeof(saved), "%s", probe_path);
	if (copy_probe(tpath("probe-copy")))
		return FAIL;
	snprintf(probe_path, sizeof(probe_path), "%s", tpath("probe-copy"));
	chmod(tmp, 0777);
	if (seteuid(65534)) {
		snprintf(probe_path, sizeof(probe_path), "%s", saved);
		SKIP("seteuid: %s", strerror(errno));
	}
	err1 = spawn_flags(POSIX_SPAWN_RESETIDS, 0);
	snprintf(euid1, sizeof(euid1), "%s", get("euid") ? get("euid") : "?");
	err2 = spawn_flags(0, 0);
	if (seteuid(0))
		return FAIL;
	chmod(tmp, 0700);
	snprintf(probe_path, sizeof(probe_path), "%s", saved);
	CHECK_EQ(err1, 0);
	CHECK_STR(euid1, "0");
	CHECK_EQ(err2, 0);
	CHECK_STR(get("euid"), "65534");
	CHECK_STR(get("uid"), "0");
	return PASS;
}

static int t_sched_param(void)
{
	posix_spawnattr_t at;
	struct sched_param sp = { .sched_priority = 0 };

	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSCHEDPARAM);
	posix_spawnattr_setschedparam(&at, &sp);
	CHECK_EQ(PROBE(NULL, &at), 0);
	CHECK_STR(get("policy"), "0");
	/* SCHED_OTHER takes priority 0 only. */
	sp.sched_priority = 1;
	posix_spawnattr_setschedparam(&at, &sp);
	CHECK_EQ(PROBE(NULL, &at), EINVAL);
	/* SETSCHEDULER with SCHED_OTHER, priority 1: still EINVAL. */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSCHEDULER);
	CHECK_EQ(PROBE(NULL, &at), EINVAL);
	sp.sched_priority = 0;
	posix_spawnattr_setschedparam(&at, &sp);
	CHECK_EQ(PROBE(NULL, &at), 0);
	posix_spawnattr_destroy(&at);
	return PASS;
}

static int t_sched_fifo(void)
{
	posix_spawnattr_t at;
	struct sched_param sp = { .sched_priority = 1 };
	int err;

	NEED_ROOT();
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSCHEDULER |
				 POSIX_SPAWN_SETSCHEDPARAM);
	posix_spawnattr_setschedpolicy(&at, SCHED_FIFO);
	posix_spawnattr_setschedparam(&at, &sp);
	err = PROBE(NULL, &at);
	posix_spawnattr_destroy(&at);
	if (err == EPERM)
		SKIP("real-time scheduling not permitted here");
	CHECK_EQ(err, 0);
	CHECK_STR(get("policy"), "1");
	CHECK_STR(get("prio"), "1");
	return PASS;
}

/* ---- posix_spawnp ---- */

static char saved_path[8192];

static int spawnp_with(const char *path, const char *file,
		       const posix_spawn_file_actions_t *fa)
{
	char *argv[] = { "spawn-probe", out, NULL };
	int err;

	if (path)
		setenv("PATH", path, 1);
	else
		unsetenv("PATH");
	err = run(1, file, fa, NULL, argv, NULL);
	setenv("PATH", saved_path, 1);
	return err;
}

static int t_spawnp_search(void)
{
	char p[3 * PATH_MAX];

	mkdir(tpath("p1"), 0755);
	mkdir(tpath("p2"), 0755);
	symlink(probe_path, tpath("p2/prog"));
	snprintf(p, sizeof(p), "%s:/nonexistent:%s", tpath("p1"), tpath("p2"));
	CHECK_EQ(spawnp_with(p, "prog", NULL), 0);
	CHECK_EQ(spawnp_with(tpath("p1"), "prog", NULL), ENOENT);
	/* With a slash: no search, relative to our directory. */
	CHECK_EQ(spawnp_with(tpath("p1"), probe_path, NULL), 0);
	CHECK_EQ(spawnp_with(p, "p2/prog", NULL), ENOENT);
	CHECK_EQ(spawnp_with(p, "", NULL), ENOENT);
	return PASS;
}

static int t_spawnp_default_path(void)
{
	char *argv[] = { "true", NULL };
	int err;

	/* PATH unset: glibc's default, /bin:/usr/bin. */
	unsetenv("PATH");
	err = run(1, "true", NULL, NULL, argv, NULL);
	setenv("PATH", saved_path, 1);
	CHECK_EQ(err, 0);
	CHECK_EQ(status, 0);
	return PASS;
}

static int t_spawnp_empty_element(void)
{
	char cwd[PATH_MAX];
	int err1, err2, err3;

	mkdir(tpath("e"), 0755);
	symlink(probe_path, tpath("e/eprog"));
	if (!getcwd(cwd, sizeof(cwd)) || chdir(tpath("e")))
		return FAIL;
	err1 = spawnp_with("/nonexistent:", "eprog", NULL);
	err2 = spawnp_with(":/nonexistent", "eprog", NULL);
	err3 = spawnp_with("/nonexistent::/bin", "eprog", NULL);
	if (chdir(cwd))
		return FAIL;
	CHECK_EQ(err1, 0);
	CHECK_EQ(err2, 0);
	CHECK_EQ(err3, 0);
	CHECK_EQ(spawnp_with("/nonexistent:", "eprog", NULL), ENOENT);
	return PASS;
}

static int t_spawnp_eacces(void)
{
	char p[3 * PATH_MAX];

	mkdir(tpath("a1"), 0755);
	mkdir(tpath("a2"), 0755);
	mkdir(tpath("a3"), 0755);
	write_file(tpath("a1/acc"), "#!/bin/sh\n", 0644);
	symlink(probe_path, tpath("a2/acc"));
	/* EACCES goes on; a later hit wins. */
	snprintf(p, sizeof(p), "%s:%s", tpath("a1"), tpath("a2"));
	CHECK_EQ(spawnp_with(p, "acc", NULL), 0);
	/* Nothing later: EACCES, even if a later element says ENOENT. */
	snprintf(p, sizeof(p), "%s:%s", tpath("a1"), tpath("a3"));
	CHECK_EQ(spawnp_with(p, "acc", NULL), EACCES);
	/* A directory named like the file is EACCES too. */
	mkdir(tpath("a1/dirprog"), 0755);
	symlink(probe_path, tpath("a2/dirprog"));
	snprintf(p, sizeof(p), "%s:%s", tpath("a1"), tpath("a2"));
	CHECK_EQ(spawnp_with(p, "dirprog", NULL), 0);
	CHECK_EQ(spawnp_with(tpath("a1"), "dirprog", NULL), EACCES);
	/* ENOTDIR goes on. */
	snprintf(p, sizeof(p), "/etc/passwd:%s", tpath("a2"));
	CHECK_EQ(spawnp_with(p, "acc", NULL), 0);
	CHECK_EQ(spawnp_with("/etc/passwd", "acc", NULL), ENOTDIR);
	return PASS;
}

static int t_spawnp_stops(void)
{
	char p[3 * PATH_MAX];

	mkdir(tpath("s1"), 0755);
	mkdir(tpath("s2"), 0755);
	write_file(tpath("s1/stop"), "echo no shebang\n", 0755);
	symlink(probe_path, tpath("s2/stop"));
	snprintf(p, sizeof(p), "%s:%s", tpath("s1"), tpath("s2"));
	/* ENOEXEC ends the search: no /bin/sh, no next element. */
	CHECK_EQ(spawnp_with(p, "stop", NULL), ENOEXEC);
	/* A script's missing interpreter is ENOENT: the search goes on. */
	write_file(tpath("s1/interp"), "#!/nonexistent/sh\n", 0755);
	symlink(probe_path, tpath("s2/interp"));
	CHECK_EQ(spawnp_with(p, "interp", NULL), 0);
	CHECK_EQ(spawnp_with(tpath("s1"), "interp", NULL), ENOENT);
	return PASS;
}

static int t_spawnp_long_name(void)
{
	char name[300];

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	CHECK_EQ(spawnp_with("/bin", name, NULL), ENAMETOOLONG);
	return PASS;
}

static int t_spawnp_environ_path(void)
{
	char *argv[] = { "spawn-probe", out, NULL };
	char *env[] = { "PATH=/nonexistent", NULL };
	int err;

	/* The search uses our PATH, not the child's. */
	mkdir(tpath("v"), 0755);
	symlink(probe_path, tpath("v/vprog"));
	setenv("PATH", tpath("v"), 1);
	err = run(1, "vprog", NULL, NULL, argv, env);
	setenv("PATH", saved_path, 1);
	CHECK_EQ(err, 0);
	CHECK_STR(get("env0"), "PATH=/nonexistent");
	return PASS;
}

static int t_spawnp_relative_chdir(void)
{
	posix_spawn_file_actions_t fa;
	int err1, err2;

	/* A relative PATH element is taken in the child's new directory. */
	mkdir(tpath("r"), 0755);
	mkdir(tpath("r/sub"), 0755);
	symlink(probe_path, tpath("r/sub/rprog"));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, tpath("r"));
	err1 = spawnp_with("sub", "rprog", &fa);
	char cwd1[PATH_MAX];
	snprintf(cwd1, sizeof(cwd1), "%s", get("cwd") ? get("cwd") : "");
	err2 = spawnp_with("/nonexistent:", "rprog", &fa);
	posix_spawn_file_actions_destroy(&fa);
	CHECK_EQ(err1, 0);
	CHECK_STR(cwd1, tpath("r"));
	CHECK_EQ(err2, ENOENT);
	return PASS;
}

static int t_spawnp_action_first(void)
{
	posix_spawn_file_actions_t fa;

	/* A file action's error comes before the search's. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 3, "/etc/passwd/x", O_RDONLY, 0);
	CHECK_EQ(spawnp_with("/nonexistent", "nothing", &fa), ENOTDIR);
	posix_spawn_file_actions_destroy(&fa);
	return PASS;
}

/* ---- resources and threads ---- */

static int t_no_free_fd(void)
{
	struct rlimit rl, low;
	int fds[64], n = 0, err;
	char *argv[] = { "true", NULL };
	pid_t pid = -1;

	getrlimit(RLIMIT_NOFILE, &rl);
	low = rl;
	low.rlim_cur = 64;
	if (setrlimit(RLIMIT_NOFILE, &low))
		SKIP("setrlimit: %s", strerror(errno));
	for (int fd; n < 64 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0; )
		fds[n++] = fd;
	err = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
#ifdef WITH_PIDSPAWN
	int pidfd = -42, err2 = pidfd_spawn(&pidfd, "/bin/true", NULL, NULL,
					    argv, environ);
#endif
	while (n)
		close(fds[--n]);
	setrlimit(RLIMIT_NOFILE, &rl);
	CHECK_EQ(err, 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK_EQ(status, 0);
#ifdef WITH_PIDSPAWN
	/* pidfd_spawn needs a free fd for the pidfd. */
	CHECK_EQ(err2, EMFILE);
	CHECK_EQ(pidfd, -42);
#endif
	return PASS;
}

static void *spawner(void *arg)
{
	char *argv[] = { "true", NULL };
	long bad = 0;

	(void)arg;
	for (int i = 0; i < 5; i++) {
		pid_t pid;
		int st;

		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) ||
		    waitpid(pid, &st, 0) != pid || st != 0)
			bad++;
	}
	return (void *)bad;
}

static int t_threads(void)
{
	pthread_t t[4];
	void *bad;
	long sum = 0;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spawner, NULL);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], &bad);
		sum += (long)bad;
	}
	CHECK_EQ(sum, 0);
	return PASS;
}

/* SIGCHLD ignored: children reap themselves; a failed spawn still works. */
static int t_sigchld_ignored(void)
{
	struct sigaction sa = { .sa_handler = SIG_IGN }, old;
	char *argv[] = { "true", NULL };
	pid_t pid;
	int e1, e2, w;

	sigaction(SIGCHLD, &sa, &old);
	e1 = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
	e2 = posix_spawn(&pid, "/nonexistent", NULL, NULL, argv, environ);
	w = waitpid(-1, NULL, 0);	/* until the child is gone */
	int err = errno;
	sigaction(SIGCHLD, &old, NULL);
	CHECK_EQ(e1, 0);
	CHECK_EQ(e2, ENOENT);
	CHECK_EQ(w, -1);
	CHECK_EQ(err, ECHILD);
	return PASS;
}

/*
 * Where seccomp answers clone3() with ENOSYS (Docker's default profile),
 * spawning still works: glibc 2.36 uses clone(), the fallback falls back
 * to it.  Run in a forked child, which the filter stays in.
 */
static int t_no_clone3(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(*code), code };
	char *argv[] = { "true", NULL };
	pid_t helper = fork(), pid;
	int st;

	if (helper == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(2);
		if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
			_exit(3);
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) ||
		    waitpid(pid, &st, 0) != pid || st)
			_exit(4);
		if (posix_spawn(&pid, "/nonexistent", NULL, NULL, argv,
				environ) != ENOENT || wait(&st) != -1)
			_exit(5);
#ifdef WITH_PIDSPAWN
		int pidfd;
		posix_spawnattr_t at;

		if (pidfd_spawn(&pidfd, "/bin/true", NULL, NULL, argv, environ) ||
		    pidspawn_wait(pidfd, &st) || st)
			_exit(6);
		posix_spawnattr_init(&at);
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETCGROUP);
		if (pidspawn_backend() == PIDSPAWN_FALLBACK &&
		    posix_spawn(&pid, "/bin/true", NULL, &at, argv, environ) != ENOTSUP)
			_exit(7);
#endif
		_exit(0);
	}
	CHECK_EQ(waitpid(helper, &st, 0), helper);
	CHECK(WIFEXITED(st));
	if (WEXITSTATUS(st) == 2)
		SKIP("no seccomp");
	CHECK_EQ(WEXITSTATUS(st), 0);
	return PASS;
}

/* ---- glibc 2.39 extensions ---- */

#ifdef WITH_PIDSPAWN
static int t_pidfd_spawn(void)
{
	char want[1024];
	siginfo_t si = { 0 };
	int pidfd = -42, err;

	inheritable(want, sizeof(want));
	err = pidfd_spawn(&pidfd, probe_path, NULL, NULL, probe_argv, environ);
	CHECK_EQ(err, 0);
	CHECK(pidfd >= 0);
	CHECK_EQ(fcntl(pidfd, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(waitid(P_PIDFD, pidfd, &si, WEXITED), 0);
	CHECK_EQ(si.si_code, CLD_EXITED);
	CHECK_EQ(si.si_status, 0);
	close(pidfd);
	read_report();
	CHECK_STR(get("fds"), want);
	CHECK_EQ(atoi(get("pid")), si.si_pid);
	/* Failure: no pidfd, no child, no fd. */
	pidfd = -42;
	CHECK_EQ(pidfd_spawn(&pidfd, tpath("nonexistent"), NULL, NULL,
			     probe_argv, environ), ENOENT);
	CHECK_EQ(pidfd, -42);
	CHECK_EQ(lowest_free(), lowest_free());
	return PASS;
}

static int t_pidfd_spawnp(void)
{
	char *argv[] = { "true", NULL };
	int pidfd = -42, st;

	CHECK_EQ(pidfd_spawnp(&pidfd, "true", NULL, NULL, argv, environ), 0);
	CHECK_EQ(pidspawn_wait(pidfd, &st), 0);
	CHECK_EQ(st, 0);
	close(pidfd);
	pidfd = -42;
	CHECK_EQ(pidfd_spawnp(&pidfd, "no-such-program-here", NULL, NULL,
			      argv, environ), ENOENT);
	CHECK_EQ(pidfd, -42);
	return PASS;
}

static int cgroup2_dir(char *buf, size_t size)
{
	char line[1024], mnt[512], type[64];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - ");

		if (dash && sscanf(dash, " - %63s", type) == 1 &&
		    !strcmp(type, "cgroup2") &&
		    sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1) {
			snprintf(buf, size, "%s/pidspawn-test-%d", mnt, getpid());
			found = 1;
			break;
		}
	}
	if (f)
		fclose(f);
	return found && !mkdir(buf, 0755) ? 0 : -1;
}

static int t_cgroup(void)
{
	posix_spawnattr_t at;
	char dir[1100], want[1100];
	int cg, err, err2, err3;

	NEED_ROOT();
	if (cgroup2_dir(dir, sizeof(dir)))
		SKIP("no writable cgroup2 hierarchy");
	cg = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETCGROUP);
	posix_spawnattr_setcgroup_np(&at, cg);
	err = PROBE(NULL, &at);
	char got[1100];
	snprintf(got, sizeof(got), "%s", get("cgroup") ? get("cgroup") : "");
	posix_spawnattr_setcgroup_np(&at, 99);	/* not open */
	err2 = PROBE(NULL, &at);
	/* clone3() refuses a negative cgroup fd with EINVAL, not EBADF. */
	posix_spawnattr_setcgroup_np(&at, -1);
	err3 = PROBE(NULL, &at);
	close(cg);
	rmdir(dir);
	posix_spawnattr_destroy(&at);
	CHECK_EQ(err, 0);
	snprintf(want, sizeof(want), "%s", strrchr(dir, '/'));
	CHECK(strstr(got, want) != NULL);
	CHECK_EQ(err2, EBADF);
	CHECK_EQ(err3, EINVAL);
	return PASS;
}

/* ---- the kernel's own API ---- */

static int t_builder_basic(void)
{
	char *env[] = { "X=y", NULL };
	char *argv[] = { "spawn-probe", out, "5", NULL };
	int fd = pidspawn_create(0), st = -1;
	pid_t pid;

	NEED_NATIVE();
	CHECK(fd >= 0);
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(pidspawn_set_exec_path(fd, AT_FDCWD, probe_path), 0);
	CHECK_EQ(pidspawn_set_argv(fd, argv), 0);
	CHECK_EQ(pidspawn_set_envp(fd, env), 0);
	pid = pidspawn_start(fd);
	CHECK(pid > 0);
	CHECK_EQ(pidspawn_wait(fd, &st), 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5);
	/* Started: the configuration is over. */
	CHECK_EQ(pidspawn_inherit_fds(fd), -1);
	CHECK_EQ(errno, EBUSY);
	close(fd);
	read_report();
	/* Pristine: only 0, 1, 2 of ours. */
	CHECK_STR(get("fds"), " 0 1 2");
	CHECK_STR(get("envc"), "1");
	CHECK_STR(get("env0"), "X=y");
	return PASS;
}

static int t_builder_defaults(void)
{
	char *argv[] = { "spawn-probe", out, NULL };
	int fd = pidspawn_create(0), st;

	NEED_NATIVE();
	/* No envp: an empty environment. */
	CHECK_EQ(pidspawn_set_exec_path(fd, AT_FDCWD, probe_path), 0);
	CHECK_EQ(pidspawn_set_argv(fd, argv), 0);
	CHECK(pidspawn_start(fd) > 0);
	CHECK_EQ(pidspawn_wait(fd, &st), 0);
	close(fd);
	read_report();
	CHECK_STR(get("envc"), "0");
	CHECK_EQ(atoi(get("ppid")), getpid());
	return PASS;
}

static int t_builder_actions(void)
{
	char *argv[] = { "spawn-probe", out, NULL };
	int fd = pidspawn_create(0), st, keep, path, has_setsid;
	sigset_t s;

	NEED_NATIVE();
	keep = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	path = open(probe_path, O_PATH | O_CLOEXEC);
	mkdir(tpath("b"), 0755);
	CHECK_EQ(pidspawn_set_exec_fd(fd, path), 0);
	CHECK_EQ(pidspawn_set_argv(fd, argv), 0);
	CHECK_EQ(pidspawn_act_give_fd(fd, keep, 20), 0);
	CHECK_EQ(pidspawn_act_dup2(fd, 20, 21), 0);
	CHECK_EQ(pidspawn_act_open(fd, 22, "/dev/null", O_RDONLY, 0), 0);
	CHECK_EQ(pidspawn_act_dup2(fd, 22, 23), 0);
	CHECK_EQ(pidspawn_act_close_range(fd, 23, -1, 0), 0);
	CHECK_EQ(pidspawn_act_close(fd, 22), 0);
	CHECK_EQ(pidspawn_act_chdir(fd, tmp), 0);
	CHECK_EQ(pidspawn_act_chdir(fd, "b"), 0);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	CHECK_EQ(pidspawn_set_sigmask(fd, &s), 0);
	/* SETSID is series 2's: a kernel with the core alone lacks it. */
	has_setsid = pidspawn_setsid(fd) == 0;
	CHECK(has_setsid || errno == EOPNOTSUPP);
	CHECK(pidspawn_start(fd) > 0);
	CHECK_EQ(pidspawn_wait(fd, &st), 0);
	CHECK_EQ(st, 0);
	close(fd);
	close(keep);
	close(path);
	read_report();
	CHECK_STR(get("fds"), " 0 1 2 20 21");
	CHECK_STR(get("fd20"), "/dev/zero");
	CHECK_STR(get("cwd"), tpath("b"));
	CHECK_EQ(hex("sigBlk"), BIT(SIGUSR1));
	CHECK_EQ(atoi(get("sid")) == atoi(get("pid")), has_setsid);
	return PASS;
}

/*
 * The raw actions are the kernel's: ACT_CLOSE is close() (EBADF for an fd
 * the child does not have), ACT_DUP2 dup2() (onto itself, FD_CLOEXEC
 * stays unless PIDFD_FD_CLEAR_CLOEXEC), ACT_GIVE_FD takes no flags.
 */
static int t_builder_close_dup2(void)
{
	char *argv[] = { "spawn-probe", out, NULL };
	/* <linux/pidfd.h>'s struct pidfd_fd_pair. */
	struct pidfd_fd_pair pair;
	int keep = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int clear = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	int fd = pidspawn_create(0), st, e1, e2, e3, e4, e5, e6, e7;
	pid_t pid;

	NEED_NATIVE();
	pidspawn_set_exec_path(fd, AT_FDCWD, probe_path);
	pidspawn_set_argv(fd, argv);
	e1 = pidspawn_act_close(fd, 70);
	pid = pidspawn_start(fd);
	e2 = errno;
	close(fd);
	CHECK_EQ(e1, 0);
	CHECK_EQ(pid, -1);
	CHECK_EQ(e2, EBADF);

	fd = pidspawn_create(0);
	pidspawn_set_exec_path(fd, AT_FDCWD, probe_path);
	pidspawn_set_argv(fd, argv);
	pidspawn_inherit_fds(fd);
	e1 = pidspawn_act_close_range(fd, 70, 70, 0);
	e2 = pidspawn_act_dup2(fd, keep, keep);
	e3 = pidspawn_act_dup2_flags(fd, clear, clear, PIDFD_FD_CLEAR_CLOEXEC);
	e4 = pidspawn_act_dup2_flags(fd, keep, keep, 2) ? errno : 0;
	pair = (struct pidfd_fd_pair){ .fd = keep, .newfd = 5, .flags = 1 };
	e5 = pidspawn_config(fd, PIDFD_CONFIG_ACT_GIVE_FD, NULL, &pair,
			     sizeof(pair)) ? errno : 0;
	/* The pair has one size, and its reserved field must be 0. */
	pair = (struct pidfd_fd_pair){ .fd = 0, .newfd = 0 };
	e6 = pidspawn_config(fd, PIDFD_CONFIG_ACT_DUP2, NULL, &pair, 12) ? errno : 0;
	pair.__reserved = 1;
	e7 = pidspawn_config(fd, PIDFD_CONFIG_ACT_DUP2, NULL, &pair,
			     sizeof(pair)) ? errno : 0;
	pid = pidspawn_start(fd);
	st = -1;
	if (pid > 0)
		pidspawn_wait(fd, &st);
	close(fd);
	close(keep);
	close(clear);
	CHECK(pid > 0);
	CHECK_EQ(st, 0);
	CHECK_EQ(e1, 0);
	CHECK_EQ(e2, 0);
	CHECK_EQ(e3, 0);
	CHECK_EQ(e4, EINVAL);
	CHECK_EQ(e5, EINVAL);
	CHECK_EQ(e6, EINVAL);
	CHECK_EQ(e7, EINVAL);
	read_report();
	CHECK_EQ(has_fd(keep), 0);
	CHECK_EQ(has_fd(clear), 1);
	return PASS;
}

static int t_builder_cwd_inherit(void)
{
	char *argv[] = { "spawn-probe", out, NULL };
	int fd = pidspawn_create(0), st, keep = open("/dev/null", O_RDONLY);
	int dfd = open("/usr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	NEED_NATIVE();
	CHECK_EQ(pidspawn_set_exec_path(fd, AT_FDCWD, probe_path), 0);
	CHECK_EQ(pidspawn_set_argv(fd, argv), 0);
	CHECK_EQ(pidspawn_inherit_fds(fd), 0);
	CHECK_EQ(pidspawn_set_cwd(fd, dfd, "lib"), 0);
	CHECK(pidspawn_start(fd) > 0);
	CHECK_EQ(pidspawn_wait(fd, &st), 0);
	close(fd);
	read_report();
	CHECK_EQ(has_fd(keep), 1);
	CHECK_EQ(has_fd(dfd), 0);
	CHECK_STR(get("cwd"), "/usr/lib");
	close(keep);
	close(dfd);
	return PASS;
}

static int t_builder_errors(void)
{
	char *argv[] = { "spawn-probe", out, NULL };
	char msg[512];
	int fd = pidspawn_create(0), pidfd, n = 0;

	NEED_NATIVE();
	/* Nothing failed yet: no message. */
	CHECK_EQ(pidspawn_error(fd, msg, sizeof(msg)), -1);
	CHECK_EQ(errno, ENODATA);
	/* The executable is checked at once. */
	CHECK_EQ(pidspawn_set_exec_path(fd, AT_FDCWD, tpath("none")), -1);
	CHECK_EQ(errno, ENOENT);
	write_file(tpath("plain"), "x", 0644);
	CHECK_EQ(pidspawn_set_exec_path(fd, AT_FDCWD, tpath("plain")), -1);
	CHECK_EQ(errno, EACCES);
	CHECK_EQ(pidspawn_set_exec_path(fd, AT_FDCWD, tmp), -1);
	CHECK_EQ(errno, EACCES);
	CHECK_EQ(pidspawn_config(fd, 1000, NULL, NULL, 0), -1);
	CHECK_EQ(errno, EOPNOTSUPP);
	CHECK_EQ(pidspawn_config(fd, PIDFD_CONFIG_INHERIT_FDS, NULL, NULL, 1), -1);
	CHECK_EQ(errno, EINVAL);
	close(fd);
	/* A start that fails: its error, a message, no child, then EBUSY. */
	fd = pidspawn_create(0);
	CHECK_EQ(pidspawn_set_exec_path(fd, AT_FDCWD, probe_path), 0);
	CHECK_EQ(pidspawn_set_argv(fd, argv), 0);
	CHECK_EQ(pidspawn_act_open(fd, 3, tpath("none"), O_RDONLY, 0), 0);
	CHECK_EQ(pidspawn_start(fd), -1);
	CHECK_EQ(errno, ENOENT);
	while (pidspawn_error(fd, msg, sizeof(msg)) >= 0 && n < 100) {
		printf("# the kernel says: %s\n", msg);
		n++;
	}
	CHECK_EQ(errno, ENODATA);
	CHECK(n > 0);
	CHECK_EQ(pidspawn_start(fd), -1);
	CHECK_EQ(errno, EBUSY);
	close(fd);
	/* Not an empty pidfd. */
	pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	CHECK_EQ(pidspawn_inherit_fds(pidfd), -1);
	CHECK(errno == EBADF || errno == EINVAL);
	close(pidfd);
	return PASS;
}

/*
 * Does the running kernel have the commands posix_spawn() needs for
 * @flags (and for a tcsetpgrp action)?  The core series alone has none of
 * the attributes' but the signals': the library then takes the fallback
 * for such a spawn, exactly.  An unknown command is EOPNOTSUPP, a known
 * one refuses these arguments otherwise or takes them.
 */
static int kernel_has(short flags, int tcsetpgrp)
{
	struct sched_param sp = { 0 };
	int fd = pidspawn_create(0), has = fd >= 0;

#define HAS(call) (has = has && ((call) == 0 || errno != EOPNOTSUPP))
	if (flags & POSIX_SPAWN_SETPGROUP)
		HAS(pidspawn_setpgid(fd, 0));
	if (flags & POSIX_SPAWN_SETSID)
		HAS(pidspawn_setsid(fd));
	if (flags & POSIX_SPAWN_RESETIDS)
		HAS(pidspawn_resetids(fd));
	if (flags & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER))
		HAS(pidspawn_set_scheduler(fd, SCHED_OTHER, &sp));
	if (flags & POSIX_SPAWN_SETCGROUP)
		HAS(pidspawn_set_cgroup(fd, -1));
	if (tcsetpgrp)
		HAS(pidspawn_act_tcsetpgrp(fd, 0));
#undef HAS
	if (fd >= 0)
		close(fd);
	return has;
}

/* PIDSPAWN_TRACE: did the last call go native (from a template or not)? */
static int last_trace(char *line, size_t size)
{
	FILE *f = fopen(tpath("trace"), "re");

	line[0] = '\0';
	while (f && fgets(line, size, f))
		;
	if (f)
		fclose(f);
	return strstr(line, ": native: ") || strstr(line, ": template: ");
}

static int t_native_used(void)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char line[600];
	int pidfd, st;

	NEED_NATIVE_BACKEND();
	setenv("PIDSPAWN_TRACE", tpath("trace"), 1);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 5, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 5, 6);
	posix_spawn_file_actions_addclose(&fa, 5);
	posix_spawn_file_actions_addchdir_np(&fa, "/");
	posix_spawn_file_actions_addclosefrom_np(&fa, 100);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID |
				 POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	int e1 = PROBE(&fa, &at), n1 = last_trace(line, sizeof(line));
	int e2 = spawnp_with(NULL, "true", NULL), n2 = last_trace(line, sizeof(line));
	char *argv[] = { "true", NULL };
	int e3 = pidfd_spawn(&pidfd, "/bin/true", NULL, NULL, argv, environ);
	int n3 = last_trace(line, sizeof(line));
	if (!e3) {
		pidspawn_wait(pidfd, &st);
		close(pidfd);
	}
	/* An O_CLOEXEC open is native too (the kernel moves it as glibc). */
	posix_spawn_file_actions_addopen(&fa, 7, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
	int e4 = PROBE(&fa, &at), n4 = last_trace(line, sizeof(line));
	/* tcsetpgrp too, failing in the child as glibc's would. */
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	posix_spawn_file_actions_addtcsetpgrp_np(&fa, devnull);
	int e5 = PROBE(&fa, &at), n5 = last_trace(line, sizeof(line));
	/*
	 * A cgroup the kernel refuses: glibc's clone3() would fail first, so
	 * the kernel's error is the answer, natively.
	 */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETCGROUP);
	posix_spawnattr_setcgroup_np(&at, 99);	/* not open */
	int e6 = PROBE(NULL, &at), n6 = last_trace(line, sizeof(line));
	close(devnull);
	unsetenv("PIDSPAWN_TRACE");
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	/* Native where the kernel has the commands (all but the core alone). */
	int has = kernel_has(POSIX_SPAWN_SETSID, 0);

	CHECK_EQ(e1, 0);
	CHECK_EQ(n1, has);
	CHECK_EQ(e2, 0);
	CHECK_EQ(n2, 1);
	CHECK_EQ(e3, 0);
	CHECK_EQ(n3, 1);
	CHECK_EQ(e4, 0);
	CHECK_EQ(n4, has);
	CHECK_EQ(e5, ENOTTY);
	CHECK_EQ(n5, kernel_has(POSIX_SPAWN_SETSID, 1));
	CHECK_EQ(e6, EBADF);
	CHECK_EQ(n6, kernel_has(POSIX_SPAWN_SETCGROUP, 0));
	return PASS;
}

/*
 * Each attribute and file action the kernel can express goes native, on
 * success and on failure alike: a kernel that refused one at
 * configuration time would be hidden by the fallback otherwise.  One the
 * running kernel lacks (the core series alone) goes to the fallback, with
 * the same result.
 */
static int t_native_each(void)
{
	static const struct {
		const char *what;
		short flags;
		int action, err, pgrp;
	} cases[] = {
		{ "plain", 0, 0, 0, 0 },
		{ "setpgroup", POSIX_SPAWN_SETPGROUP, 0, 0, 0 },
		{ "setpgroup fails", POSIX_SPAWN_SETPGROUP, 0, EPERM, 0x3ffffff0 },
		{ "setsid", POSIX_SPAWN_SETSID, 0, 0, 0 },
		{ "resetids", POSIX_SPAWN_RESETIDS, 0, 0, 0 },
		{ "schedparam", POSIX_SPAWN_SETSCHEDPARAM, 0, 0, 0 },
		{ "scheduler", POSIX_SPAWN_SETSCHEDULER, 0, 0, 0 },
		{ "sigdef", POSIX_SPAWN_SETSIGDEF, 0, 0, 0 },
		{ "sigmask", POSIX_SPAWN_SETSIGMASK, 0, 0, 0 },
		{ "usevfork", POSIX_SPAWN_USEVFORK, 0, 0, 0 },
		{ "cgroup", POSIX_SPAWN_SETCGROUP, 0, 0, 0 },
		{ "open", 0, 1, 0, 0 },
		{ "open fails", 0, 2, ENOENT, 0 },
		{ "dup2", 0, 3, 0, 0 },
		{ "dup2 fails", 0, 4, EBADF, 0 },
		{ "close", 0, 5, 0, 0 },
		{ "chdir", 0, 6, 0, 0 },
		{ "chdir fails", 0, 7, ENOENT, 0 },
		{ "fchdir", 0, 8, 0, 0 },
		{ "closefrom", 0, 9, 0, 0 },
		{ "close not open", 0, 10, 0, 0 },
		{ "dup2 onto itself", 0, 11, 0, 0 },
	};
	char line[600], cgdir[1100];
	int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), cg = -1;

	NEED_NATIVE_BACKEND();
	if (!geteuid() && !cgroup2_dir(cgdir, sizeof(cgdir)))
		cg = open(cgdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	setenv("PIDSPAWN_TRACE", tpath("trace"), 1);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		posix_spawn_file_actions_t fa;
		posix_spawnattr_t at;
		struct sched_param sp = { 0 };
		int err, went;

		if (cases[i].flags & POSIX_SPAWN_SETCGROUP && cg < 0)
			continue;
		posix_spawnattr_init(&at);
		posix_spawnattr_setflags(&at, cases[i].flags);
		posix_spawnattr_setpgroup(&at, cases[i].pgrp);
		posix_spawnattr_setschedparam(&at, &sp);
		posix_spawnattr_setcgroup_np(&at, cg);
		posix_spawn_file_actions_init(&fa);
		switch (cases[i].action) {
		case 1: posix_spawn_file_actions_addopen(&fa, 9, "/dev/null", O_RDONLY, 0); break;
		case 2: posix_spawn_file_actions_addopen(&fa, 9, tpath("none"), O_RDONLY, 0); break;
		case 3: posix_spawn_file_actions_adddup2(&fa, 1, 9); break;
		case 4: posix_spawn_file_actions_adddup2(&fa, 99, 9); break;
		case 5: posix_spawn_file_actions_addclose(&fa, 1); break;
		case 6: posix_spawn_file_actions_addchdir_np(&fa, "/"); break;
		case 7: posix_spawn_file_actions_addchdir_np(&fa, tpath("none")); break;
		case 8: posix_spawn_file_actions_addfchdir_np(&fa, dfd); break;
		case 9: posix_spawn_file_actions_addclosefrom_np(&fa, 3); break;
		case 10: posix_spawn_file_actions_addclose(&fa, 99); break;
		case 11: posix_spawn_file_actions_adddup2(&fa, 1, 1); break;
		}
		err = PROBE(&fa, &at);
		went = last_trace(line, sizeof(line));
		posix_spawn_file_actions_destroy(&fa);
		posix_spawnattr_destroy(&at);
		if (err != cases[i].err || went != kernel_has(cases[i].flags, 0)) {
			unsetenv("PIDSPAWN_TRACE");
			close(dfd);
			if (cg >= 0)
				close(cg);
			return fail_at(__LINE__, "%s: error %d (expected %d), %s",
				       cases[i].what, err, cases[i].err, line);
		}
	}
	unsetenv("PIDSPAWN_TRACE");
	close(dfd);
	if (cg >= 0) {
		close(cg);
		rmdir(cgdir);
	}
	return PASS;
}

static int t_backend(void)
{
	const char *env = getenv("PIDSPAWN_BACKEND");
	int b = pidspawn_backend();

	printf("# backend: %s\n", b == PIDSPAWN_NATIVE ? "native" : "fallback");
	if (env && !strcmp(env, "native"))
		CHECK_EQ(b, PIDSPAWN_NATIVE);
	else if (env && !strcmp(env, "fallback"))
		CHECK_EQ(b, PIDSPAWN_FALLBACK);
	else
		CHECK_EQ(b, native ? PIDSPAWN_NATIVE : PIDSPAWN_FALLBACK);
	return PASS;
}
#endif /* WITH_PIDSPAWN */

static const struct test tests[] = {
	T(t_sizes), T(t_attr_defaults), T(t_attr_flags), T(t_attr_roundtrip),
	T(t_attr_policy), T(t_fa_bad_fds), T(t_fa_many), T(t_fa_path_copied),
	T(t_basic), T(t_argv_envp), T(t_empty_env), T(t_pid_null),
	T(t_exit_status), T(t_enoent), T(t_eacces), T(t_enoexec),
	T(t_enotdir), T(t_script), T(t_e2big),
	T(t_fa_order), T(t_fa_open_replaces), T(t_fa_open_creat),
	T(t_fa_open_enoent), T(t_fa_open_cloexec), T(t_fa_dup2_self),
	T(t_fa_dup2_ebadf), T(t_fa_close), T(t_fa_close_rlimit),
	T(t_fds_inherited), T(t_fa_chdir), T(t_fa_chdir_exec),
	T(t_fa_fchdir), T(t_fa_closefrom), T(t_fa_tcsetpgrp),
	T(t_sig_mask), T(t_sig_default), T(t_sig_glibc_internal),
	T(t_setpgroup), T(t_setsid), T(t_usevfork), T(t_resetids),
	T(t_sched_param), T(t_sched_fifo),
	T(t_spawnp_search), T(t_spawnp_default_path),
	T(t_spawnp_empty_element), T(t_spawnp_eacces), T(t_spawnp_stops),
	T(t_spawnp_long_name), T(t_spawnp_environ_path),
	T(t_spawnp_relative_chdir), T(t_spawnp_action_first),
	T(t_no_free_fd), T(t_threads), T(t_sigchld_ignored), T(t_no_clone3),
#ifdef WITH_PIDSPAWN
	T(t_pidfd_spawn), T(t_pidfd_spawnp), T(t_cgroup),
	T(t_builder_basic), T(t_builder_defaults), T(t_builder_actions),
	T(t_builder_close_dup2), T(t_builder_cwd_inherit), T(t_builder_errors),
	T(t_native_used), T(t_native_each),
	T(t_backend),
#endif
};


int main(int argc, char **argv)
{
	const char *skip_all = NULL;
	const char *env = getenv("PIDSPAWN_BACKEND");
	ssize_t len;

	setvbuf(stdout, NULL, _IOLBF, 0);
	len = readlink("/proc/self/exe", probe_path, sizeof(probe_path) - 32);
	if (len < 0)
		return 1;
	probe_path[len] = '\0';
	strcpy(strrchr(probe_path, '/'), "/spawn-probe");
	if (tap_mkdtemp("spawn-test"))
		return 1;
	snprintf(out, sizeof(out), "%s/report", tmp);
	snprintf(saved_path, sizeof(saved_path), "%s",
		 getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
#ifdef WITH_PIDSPAWN
	int fd = pidspawn_create(0);

	if (fd >= 0) {
		native = pidspawn_config(fd, ~0U, NULL, NULL, 0) < 0 &&
			 errno == EOPNOTSUPP;
		close(fd);
	}
	if (env && !strcmp(env, "native") && !native)
		skip_all = "pidfd_config() missing: the native backend cannot run";
	printf("# libpidspawn, backend %s%s\n",
	       pidspawn_backend() == PIDSPAWN_NATIVE ? "native" : "fallback",
	       native ? ", kernel has pidfd_config()" : "");
#else
	(void)env;
	printf("# glibc %s, the reference\n", gnu_get_libc_version());
#endif
	return tap_run(tests, sizeof(tests) / sizeof(*tests),
		       argc > 1 ? argv[1] : NULL, skip_all, 0);
}
