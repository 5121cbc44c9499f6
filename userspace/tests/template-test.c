// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spawn templates, as TAP: the raw wrappers, struct pidspawn_template and
 * the posix_spawn cache (POSIX_SPAWN_TEMPLATE_NP).  Everything runs on
 * every kernel: without templates (the host: fallback; PIDSPAWN_FAKE_*)
 * the objects spawn by path and the checks that need a template skip.
 * Checks that need the real kernel (fdinfo, writers refused) skip where
 * a template fd has no "exec_hits:" in its fdinfo (tests/fake-kernel.so).
 * After every test: no child left, no fd leaked below the template fds.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "pidspawn.h"
#include "tap.h"

extern char **environ;

/* @dst becomes a copy of @src (renamed into place, a new inode). */
static int copy(const char *src, const char *dst)
{
	char buf[65536], part[1100];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	snprintf(part, sizeof(part), "%s.part", dst);
	out = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	close(in);
	close(out);
	return n < 0 ? -1 : rename(part, dst);
}

/* Spawn from @t, wait: the exit status, or -error. */
static int run_tmpl(struct pidspawn_template *t, int use_pidfd)
{
	char *argv[] = { "prog", NULL };
	pid_t pid = -42;
	int pidfd = -42, err, st;

	err = pidspawn_template_spawn(t, &pid, use_pidfd ? &pidfd : NULL, NULL,
				      NULL, argv, environ);
	if (err)
		return pid == -42 && pidfd == -42 ? -err : -1000;
	if (use_pidfd) {
		if (fcntl(pidfd, F_GETFD) != FD_CLOEXEC)
			return -1001;
		err = pidspawn_wait(pidfd, &st);
		close(pidfd);
	} else {
		err = waitpid(pid, &st, 0) != pid;
	}
	return err ? -1002 : WIFEXITED(st) ? WEXITSTATUS(st) : -1003;
}

/* fdinfo's @key of @fd, -1 without it (no template, the emulation). */
static long fdinfo(int fd, const char *key)
{
	char name[64], line[256];
	size_t k = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/self/fdinfo/%d", fd);
	f = fd >= 0 ? fopen(name, "re") : NULL;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, k) && line[k] == ':')
			v = atol(line + k + 1);
	if (f)
		fclose(f);
	return v;
}

/* How many of our fds are kernel templates. */
static int kernel_templates(void)
{
	char link[64], name[300];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	while (dir && (d = readdir(dir))) {
		ssize_t len;

		snprintf(name, sizeof(name), "/proc/self/fd/%s", d->d_name);
		len = readlink(name, link, sizeof(link) - 1);
		link[len > 0 ? len : 0] = '\0';
		n += !strcmp(link, "anon_inode:[pidfd_template]");
	}
	if (dir)
		closedir(dir);
	return n;
}

/* ---- the objects ---- */

static int t_create_errors(void)
{
	errno = 0;
	CHECK(!pidspawn_template_create("bin/true", 0));
	CHECK_EQ(errno, EINVAL);
	CHECK(!pidspawn_template_create("/bin/true", 1));
	CHECK_EQ(errno, EINVAL);
	pidspawn_template_free(NULL);
	return PASS;
}

/* Many spawns, with and without a pidfd; the kernel counts them. */
static int t_spawn_many(void)
{
	struct pidspawn_template *t;
	int tfd, r = 0;
	long hits0, hits;

	CHECK_EQ(copy("/bin/true", tpath("true")), 0);
	t = pidspawn_template_create(tpath("true"), 0);
	CHECK(t);
	tfd = pidspawn_template_fd(t);
	printf("# template fd %d\n", tfd);
	hits0 = fdinfo(tfd, "exec_hits");
	for (int i = 0; i < 20 && !r; i++)
		r = run_tmpl(t, i % 2);
	hits = fdinfo(tfd, "exec_hits");
	CHECK_EQ(pidspawn_template_fd(t), tfd);
	if (tfd >= 0)
		CHECK_EQ(fcntl(tfd, F_GETFD), FD_CLOEXEC);
	pidspawn_template_free(t);
	CHECK_EQ(r, 0);
	if (pidspawn_backend() == PIDSPAWN_FALLBACK)
		CHECK_EQ(tfd, -1);
	if (tfd < 0)
		SKIP("no kernel templates: spawned by path");
	if (hits < 0)
		SKIP("no fdinfo counters (emulated kernel)");
	CHECK(hits >= hits0 + 19);
	return PASS;
}

/* Failures are posix_spawn's; nothing is returned. */
static int t_spawn_errors(void)
{
	struct pidspawn_template *t = pidspawn_template_create(tpath("none"), 0);
	char *argv[] = { "none", NULL };
	pid_t pid = -42;
	int pidfd = -42, err;

	CHECK(t);
	CHECK_EQ(pidspawn_template_fd(t), -1);
	err = pidspawn_template_spawn(t, &pid, &pidfd, NULL, NULL, argv,
				      environ);
	pidspawn_template_free(t);
	CHECK_EQ(err, ENOENT);
	CHECK_EQ(pid, -42);
	CHECK_EQ(pidfd, -42);
	return PASS;
}

/* A script has no template (ENOEXEC), but spawns. */
static int t_script(void)
{
	struct pidspawn_template *t;
	int fd = open(tpath("script"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0755), r;

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "#!/bin/sh\nexit 3\n", 17), 17);
	close(fd);
	t = pidspawn_template_create(tpath("script"), 0);
	CHECK(t);
	CHECK_EQ(pidspawn_template_fd(t), -1);
	r = run_tmpl(t, 1);
	pidspawn_template_free(t);
	CHECK_EQ(r, 3);
	return PASS;
}

/* A new file renamed over the path: it runs, from a new template. */
static int t_replaced(void)
{
	struct pidspawn_template *t;
	int r1, r2, r3, fd1, fd2;
	long spawns;

	CHECK_EQ(copy("/bin/true", tpath("prog")), 0);
	t = pidspawn_template_create(tpath("prog"), 0);
	CHECK(t);
	r1 = run_tmpl(t, 0);
	fd1 = pidspawn_template_fd(t);
	copy("/bin/false", tpath("prog"));
	r2 = run_tmpl(t, 1);
	fd2 = pidspawn_template_fd(t);
	spawns = fdinfo(fd2, "spawns");
	r3 = run_tmpl(t, 0);
	pidspawn_template_free(t);
	CHECK_EQ(r1, 0);
	CHECK_EQ(r2, 1);
	CHECK_EQ(r3, 1);
	if (fd1 < 0)
		SKIP("no kernel templates: spawned by path");
	CHECK(fd2 >= 0);
	if (spawns >= 0)
		CHECK_EQ(spawns, 1);	/* the new template's one start */
	return PASS;
}

/* The kernel's side of it, raw: ESTALE at START, EACCES in a child. */
static int t_raw(void)
{
	char *argv[] = { "prog", NULL };
	int b, tfd, p, err, st;
	long spawns;
	pid_t pid;

	CHECK_EQ(copy("/bin/true", tpath("raw")), 0);
	if (pidspawn_backend() != PIDSPAWN_NATIVE)
		SKIP("no pidfd_config()");
	b = pidspawn_create(0);
	CHECK(b >= 0);
	CHECK_EQ(pidspawn_set_exec_path(b, AT_FDCWD, tpath("raw")), 0);
	tfd = pidspawn_make_template(b, 0);
	err = errno;
	CHECK_EQ(pidspawn_set_argv(b, argv) < 0 ? errno : 0, tfd < 0 ? 0 : EBUSY);
	close(b);
	if (tfd < 0 && (err == EOPNOTSUPP || err == EINVAL || err == ENOSYS))
		SKIP("no kernel templates");
	CHECK(tfd >= 0);
	CHECK_EQ(fcntl(tfd, F_GETFD), FD_CLOEXEC);
	/* A builder takes no NEW_EMPTY, a template no other command. */
	b = pidspawn_create(0);
	CHECK_EQ(pidspawn_template_new(b, 0), -1);
	CHECK_EQ(errno, EINVAL);
	close(b);
	CHECK_EQ(pidspawn_set_argv(tfd, argv), -1);
	CHECK_EQ(errno, EINVAL);
	/* From the template: argv its own, the executable fixed. */
	p = pidspawn_template_new(tfd, 0);
	CHECK(p >= 0);
	CHECK_EQ(pidspawn_set_exec_path(p, AT_FDCWD, "/bin/true"), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(pidspawn_set_argv(p, argv), 0);
	pid = pidspawn_start(p);
	CHECK(pid > 0);
	CHECK_EQ(pidspawn_wait(p, &st), 0);
	CHECK_EQ(st, 0);
	close(p);
	/* Closed unstarted: no spawn in fdinfo, which counts starts. */
	p = pidspawn_template_new(tfd, 0);
	CHECK(p >= 0);
	close(p);
	/* A fork()ed child may not use it. */
	pid = fork();
	if (pid == 0)
		_exit(pidspawn_template_new(tfd, 0) < 0 && errno == EACCES ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	/* Renamed over: START fails with ESTALE, nothing left. */
	p = pidspawn_template_new(tfd, 0);
	CHECK(p >= 0);
	copy("/bin/false", tpath("raw"));
	CHECK_EQ(pidspawn_start(p), -1);
	err = errno;
	close(p);
	spawns = fdinfo(tfd, "spawns");
	close(tfd);
	CHECK_EQ(err, ESTALE);
	/* Three processes made, one started (-1: the emulation has none). */
	if (spawns >= 0)
		CHECK_EQ(spawns, 1);
	return PASS;
}

/* Writers of the executable are refused while the template lives. */
static int t_etxtbsy(void)
{
	struct pidspawn_template *t;
	int tfd, w1, e1, w2;

	CHECK_EQ(copy("/bin/true", tpath("busy")), 0);
	t = pidspawn_template_create(tpath("busy"), 0);
	CHECK(t);
	tfd = pidspawn_template_fd(t);
	w1 = open(tpath("busy"), O_WRONLY | O_CLOEXEC);
	e1 = errno;
	if (w1 >= 0)
		close(w1);
	int hits = fdinfo(tfd, "exec_hits");
	pidspawn_template_free(t);
	w2 = open(tpath("busy"), O_WRONLY | O_CLOEXEC);
	if (w2 >= 0)
		close(w2);
	CHECK(w2 >= 0);
	if (tfd < 0)
		SKIP("no kernel templates");
	if (hits < 0)
		SKIP("the emulated kernel refuses no writer");
	CHECK_EQ(w1, -1);
	CHECK_EQ(e1, ETXTBSY);
	return PASS;
}

/* A child of fork() makes its own template from the same object. */
static int t_fork(void)
{
	struct pidspawn_template *t;
	int tfd, st;
	pid_t pid;

	CHECK_EQ(copy("/bin/true", tpath("forked")), 0);
	t = pidspawn_template_create(tpath("forked"), 0);
	CHECK(t);
	CHECK_EQ(run_tmpl(t, 0), 0);
	tfd = pidspawn_template_fd(t);
	pid = fork();
	if (pid == 0) {
		/* The parent's template is closed in the child. */
		if (tfd >= 0 && (pidspawn_template_fd(t) != -1 ||
				 fcntl(tfd, F_GETFD) != -1))
			_exit(2);
		if (run_tmpl(t, 1) || run_tmpl(t, 0))
			_exit(3);
		if (tfd >= 0 && pidspawn_template_fd(t) < 0)
			_exit(4);
		if (tfd >= 0 && fdinfo(pidspawn_template_fd(t), "spawns") >= 0 &&
		    fdinfo(pidspawn_template_fd(t), "spawns") != 2)
			_exit(5);
		pidspawn_template_free(t);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(run_tmpl(t, 0), 0);
	CHECK_EQ(pidspawn_template_fd(t), tfd);
	pidspawn_template_free(t);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	return PASS;
}

/* ---- the cache under posix_spawn ---- */

/* The last PIDSPAWN_TRACE line's way: "template", "native", ... */
static const char *last_way(void)
{
	static char line[1200];
	FILE *f = fopen(tpath("trace"), "re");
	char *p;

	line[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		;
	if (f)
		fclose(f);
	p = strstr(line, ": ");	/* "posix_spawn <file>: <way>: <err>" */
	if (!p)
		return "";
	p += 2;
	p[strcspn(p, ":")] = '\0';
	return p;
}

static int spawn_flagged(int search, const char *file, const char *want,
			 int status)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char *argv[] = { "prog", NULL };
	pid_t pid;
	int err, st;

	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_TEMPLATE_NP);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	err = (search ? posix_spawnp : posix_spawn)(&pid, file, &fa, &at, argv,
						     environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (err)
		return fail_at(0, "%s: %s", file, strerror(err));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != status)
		return fail_at(0, "%s: status %#x", file, st);
	if (want && strcmp(last_way(), want))
		return fail_at(0, "%s: went %s, expected %s", file, last_way(),
			       want);
	return PASS;
}

#define SPAWN_OK(search, file, want, status) do { \
	int r_ = spawn_flagged(search, file, want, status); \
	if (r_ != PASS) { \
		char w_[sizeof(why)]; \
		unsetenv("PIDSPAWN_TRACE"); \
		snprintf(w_, sizeof(w_), "%s", why); \
		return fail_at(__LINE__, "%s", w_); \
	} } while (0)

/*
 * A path gets a template from its second spawn on, also found by
 * posix_spawnp's PATH search; a replaced file runs; children of fork()
 * have none of the parent's.
 */
static int t_cache(void)
{
	const char *tw = NULL;
	char path[1100], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	int st, n;
	pid_t pid;

	CHECK_EQ(copy("/bin/true", tpath("cached")), 0);
	if (pidspawn_backend() == PIDSPAWN_NATIVE) {
		struct pidspawn_template *probe =
			pidspawn_template_create(tpath("cached"), 0);

		tw = pidspawn_template_fd(probe) >= 0 ? "template" : "native";
		pidspawn_template_free(probe);
	}
	setenv("PIDSPAWN_TRACE", tpath("trace"), 1);
	SPAWN_OK(0, tpath("cached"), tw ? "native" : NULL, 0);
	SPAWN_OK(0, tpath("cached"), tw, 0);
	SPAWN_OK(0, tpath("cached"), tw, 0);
	snprintf(path, sizeof(path), "%s/nothing:%s", tmp, tmp);
	setenv("PATH", path, 1);
	SPAWN_OK(1, "cached", tw, 0);
	/* A relative element first: in doubt, by path. */
	setenv("PATH", ".:/nonexistent", 1);
	int r = chdir(tmp);
	SPAWN_OK(1, "cached", tw ? "native" : NULL, 0);
	r |= chdir("/");
	if (old)
		setenv("PATH", old, 1);
	free(old);
	CHECK_EQ(r, 0);
	copy("/bin/false", tpath("cached"));
	SPAWN_OK(0, tpath("cached"), tw, 1);
	n = kernel_templates();
	pid = fork();
	if (pid == 0) {
		if (kernel_templates())
			_exit(2);
		_exit(spawn_flagged(0, tpath("cached"), tw ? "native" : NULL,
				    1) == PASS ? 0 : 3);
	}
	unsetenv("PIDSPAWN_TRACE");
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	if (!tw || strcmp(tw, "template"))
		SKIP("no kernel templates: spawned by path");
	if (n == 0)
		SKIP("no template fds to see (emulated kernel)");
	/* The documented cost: the cached executable cannot be written. */
	int w = open(tpath("cached"), O_WRONLY | O_CLOEXEC);
	CHECK_EQ(w, -1);
	CHECK_EQ(errno, ETXTBSY);
	return PASS;
}

/* File actions that act outside the child (open) take no template. */
static int t_cache_open_action(void)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char *argv[] = { "prog", NULL };
	pid_t pid;
	int err[3], st;

	CHECK_EQ(copy("/bin/true", tpath("opener")), 0);
	setenv("PIDSPAWN_TRACE", tpath("trace"), 1);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_TEMPLATE_NP);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, tpath("out"),
					 O_WRONLY | O_CREAT | O_EXCL, 0644);
	for (int i = 0; i < 3; i++) {
		unlink(tpath("out"));
		err[i] = posix_spawn(&pid, tpath("opener"), &fa, &at, argv,
				     environ);
		if (!err[i])
			waitpid(pid, &st, 0);
	}
	const char *way = last_way();
	unsetenv("PIDSPAWN_TRACE");
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	CHECK_EQ(err[0] | err[1] | err[2], 0);
	CHECK(strcmp(way, "template"));
	return PASS;
}

/*
 * After the caller's root changed (a chroot() into a bind mount of /: the
 * same files under another root), the kernel refuses the template made
 * before (EACCES at START): the spawn goes by path and succeeds, as
 * glibc's would.
 */
static int t_root_changed(void)
{
	struct pidspawn_template *t;
	pid_t pid;
	int st;

	if (pidspawn_backend() != PIDSPAWN_NATIVE || geteuid())
		SKIP("needs the native backend and root");
	CHECK_EQ(copy("/bin/true", tpath("rooted")), 0);
	CHECK_EQ(mkdir(tpath("jail"), 0755), 0);
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("/", tpath("jail"), NULL, MS_BIND | MS_REC, NULL))
			_exit(3);
		/* Made here, by this process, under the old root. */
		t = pidspawn_template_create(tpath("rooted"), 0);
		if (!t || run_tmpl(t, 0) != 0)
			_exit(4);
		if (chroot(tpath("jail")) || chdir("/"))
			_exit(5);
		_exit(run_tmpl(t, 0) == 0 && run_tmpl(t, 1) == 0 ? 0 : 6);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	if (WEXITSTATUS(st) == 3)
		SKIP("no mount namespace of its own");
	CHECK_EQ(WEXITSTATUS(st), 0);
	return PASS;
}

static const struct test tests[] = {
	T(t_create_errors), T(t_spawn_many), T(t_spawn_errors), T(t_script),
	T(t_replaced), T(t_raw), T(t_etxtbsy), T(t_fork), T(t_cache),
	T(t_cache_open_action), T(t_root_changed),
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tap_mkdtemp("template-test"))
		return 1;
	printf("# libpidspawn templates, backend %s\n",
	       pidspawn_backend() == PIDSPAWN_NATIVE ? "native" : "fallback");
	return tap_run(tests, sizeof(tests) / sizeof(*tests),
		       argc > 1 ? argv[1] : NULL, NULL, 1);
}
