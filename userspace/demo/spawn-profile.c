// SPDX-License-Identifier: GPL-2.0
/*
 * Where a spawn's instructions go, in the kernel: each method spawns the
 * child N times in a row and reports its mean cost per spawn, then the
 * kernel's own breakdown from /proc/pp_prof, which a kernel built with
 * docs/bench/spawn-profile.patch has (counts and mean nanoseconds of the
 * steps it brackets, reset by each read). Under QEMU's instruction counter
 * (run-guest.sh --icount) nanoseconds are instructions. On any other
 * kernel only the totals are printed.
 *
 *   spawn-profile N PROGRAM method...
 *   methods: vfork builder-fd builder-path template
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pidspawn.h>

#define WARMUP_SPAWNS	10

static char *child_argv[] = { "child", NULL };
static char *child_envp[] = { NULL };
static const char *path;
static int exec_fd, tmpl;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Prints the kernel's profile if @out, and resets it either way. */
static void kernel_profile(FILE *out)
{
	char buf[4096];
	ssize_t len;
	int fd = open("/proc/pp_prof", O_RDONLY);

	if (fd < 0)
		return;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len > 0 && out) {
		buf[len] = '\0';
		fputs(buf, out);
	}
}

static void spawn_vfork(void)
{
	int status;
	pid_t pid = vfork();

	if (!pid) {
		execve(path, child_argv, child_envp);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		die("vfork+execve");
}

/* The builder's per-spawn part: argv, start, reap; @pidfd has its program. */
static void builder_finish(int pidfd)
{
	siginfo_t info;

	if (pidspawn_set_argv(pidfd, child_argv) || pidspawn_start(pidfd) <= 0)
		die("SET_ARGV, START");
	if (waitid(P_PIDFD, pidfd, &info, WEXITED) || info.si_status)
		die("waitid");
	close(pidfd);
}

static int builder_create(void)
{
	int pidfd = pidspawn_create(0);

	if (pidfd < 0)
		die("pidfd_open(PIDFD_EMPTY)");
	return pidfd;
}

static void spawn_builder_fd(void)
{
	int pidfd = builder_create();

	if (pidspawn_set_exec_fd(pidfd, exec_fd))
		die("SET_EXEC_FD");
	builder_finish(pidfd);
}

static void spawn_builder_path(void)
{
	int pidfd = builder_create();

	if (pidspawn_set_exec_path(pidfd, AT_FDCWD, path))
		die("SET_EXEC_PATH");
	builder_finish(pidfd);
}

static void spawn_template(void)
{
	int pidfd = pidspawn_template_new(tmpl, 0);

	if (pidfd < 0)
		die("NEW_EMPTY");
	builder_finish(pidfd);
}

static const struct method {
	const char *name;
	void (*spawn)(void);
} methods[] = {
	{ "vfork", spawn_vfork },
	{ "builder-fd", spawn_builder_fd },
	{ "builder-path", spawn_builder_path },
	{ "template", spawn_template },
};

static const struct method *method_named(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(methods[i].name, name))
			return &methods[i];
	fprintf(stderr, "spawn-profile: unknown method \"%s\" (vfork, builder-fd, builder-path, template)\n",
		name);
	exit(2);
}

int main(int argc, char **argv)
{
	const struct method *method;
	int n, i, m, builder;
	long long start;

	if (argc < 4 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s N PROGRAM method...\n", argv[0]);
		return 2;
	}
	for (m = 3; m < argc; m++)
		method_named(argv[m]);
	path = argv[2];
	exec_fd = open(path, O_PATH | O_CLOEXEC);
	builder = pidspawn_create(0);
	if (exec_fd < 0 || builder < 0 ||
	    pidspawn_set_exec_path(builder, AT_FDCWD, path))
		die(path);
	tmpl = pidspawn_make_template(builder, 0);
	if (tmpl < 0)
		die("MAKE_TEMPLATE");
	close(builder);

	for (m = 3; m < argc; m++) {
		method = method_named(argv[m]);
		for (i = 0; i < WARMUP_SPAWNS; i++)
			method->spawn();
		kernel_profile(NULL);
		start = now_ns();
		for (i = 0; i < n; i++)
			method->spawn();
		printf("== %s: %lld ns per spawn\n", method->name, (now_ns() - start) / n);
		fflush(stdout);
		kernel_profile(stdout);
	}
	return 0;
}
