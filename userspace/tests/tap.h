/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The TAP scaffolding of the tests: checks that return from a test with
 * its reason in why[], a private temporary directory tmp[], and the runner
 * that prints TAP and fails a test that leaves a child or leaks an fd.
 *
 * A test is "static int t_name(void)" returning PASS, FAIL or SKIPPED,
 * listed as T(t_name).  main() calls tap_mkdtemp(), prints its "# ..."
 * header line and returns tap_run().
 */
#ifndef TAP_H
#define TAP_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

enum { PASS, FAIL, SKIPPED };
static char why[1024], tmp[256];

static int fail_at(int line, const char *fmt, ...)
{
	va_list ap;
	int n = line ? snprintf(why, sizeof(why), "line %d: ", line) : 0;

	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - n, fmt, ap);
	va_end(ap);
	return FAIL;
}

#define CHECK(c) do { if (!(c)) return fail_at(__LINE__, "%s", #c); } while (0)
#define CHECK_EQ(a, b) do { long long a_ = (a), b_ = (b); if (a_ != b_) \
	return fail_at(__LINE__, "%s == %lld, expected %s == %lld", #a, a_, \
		       #b, b_); } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (!a_ || strcmp(a_, b_)) return fail_at(__LINE__, \
	"%s is \"%s\", expected \"%s\"", #a, a_ ? a_ : "(none)", b_); \
	} while (0)
#define SKIP(...) do { fail_at(0, __VA_ARGS__); return SKIPPED; } while (0)

/* A file in the test's own directory. */
static const char *tpath(const char *name)
{
	static char p[4][1024];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", tmp, name);
	return p[i];
}

/* The lowest free fd in this process. */
static int lowest_free(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	close(fd);
	return fd;
}

/* Make tmp[], $TMPDIR/@prog.XXXXXX; tap_run() removes it. */
static int tap_mkdtemp(const char *prog)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/%s.XXXXXX", t ? t : "/tmp", prog);
	return mkdtemp(tmp) ? 0 : -1;
}

struct test {
	const char *name;
	int (*fn)(void);
};

#define T(f) { #f + 2, f }

/*
 * Run @tests (only the one named @only, if set; none, if @skip_all says
 * why) and print TAP.  A child left or an fd leaked fails a test; with
 * @check_skipped a skipped one too.  Returns main()'s exit status.
 */
static int tap_run(const struct test *tests, int n, const char *only,
		   const char *skip_all, int check_skipped)
{
	char cmd[PATH_MAX + 16];
	int failed = 0;

	printf("1..%d\n", n);
	for (int i = 0; i < n; i++) {
		siginfo_t si;
		int r, check, before = lowest_free();

		if (only && strcmp(only, tests[i].name)) {
			printf("ok %d %s # SKIP not selected\n", i + 1, tests[i].name);
			continue;
		}
		if (skip_all) {
			printf("ok %d %s # SKIP %s\n", i + 1, tests[i].name, skip_all);
			continue;
		}
		why[0] = '\0';
		r = tests[i].fn();
		check = r != SKIPPED || check_skipped;
		/* No child left behind, no fd leaked. */
		memset(&si, 0, sizeof(si));
		if (check && (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) == 0 ||
			      errno != ECHILD)) {
			size_t len = strlen(why);

			snprintf(why + len, sizeof(why) - len, "%sa child is left (pid %d)",
				 len ? "; " : "", si.si_pid);
			while (waitpid(-1, NULL, 0) > 0)
				;
			r = FAIL;
		}
		if (check && lowest_free() != before) {
			size_t len = strlen(why);

			snprintf(why + len, sizeof(why) - len, "%sfd %d leaked",
				 len ? "; " : "", before);
			r = FAIL;
		}
		if (r == PASS)
			printf("ok %d %s\n", i + 1, tests[i].name);
		else if (r == SKIPPED)
			printf("ok %d %s # SKIP %s\n", i + 1, tests[i].name, why);
		else
			printf("not ok %d %s\n# %s\n", i + 1, tests[i].name, why);
		failed += r == FAIL;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		failed++;
	return failed ? 1 : 0;
}

#endif
