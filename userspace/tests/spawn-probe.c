// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the spawn tests run: it writes what it finds of itself, one
 * "key=value" a line, to the file named by argv[1], then exits with
 * argv[2] if given.  The fds are listed before anything else is opened.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	char fds[4096] = "", path[PATH_MAX], line[512];
	struct sched_param sp;
	struct dirent *d;
	FILE *out, *in;
	int dfd, n;
	DIR *dir;

	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
	dir = fdopendir(dfd);
	while (dir && (d = readdir(dir)))
		if (d->d_name[0] != '.' && atoi(d->d_name) != dfd)
			snprintf(fds + strlen(fds), sizeof(fds) - strlen(fds),
				 " %s", d->d_name);
	if (dir)
		closedir(dir);
	if (argc < 2 || !(out = fopen(argv[1], "we")))
		return 125;

	fprintf(out, "argc=%d\n", argc);
	for (int i = 0; i < argc; i++)
		fprintf(out, "argv%d=%s\n", i, argv[i]);
	for (n = 0; environ[n]; n++)
		fprintf(out, "env%d=%s\n", n, environ[n]);
	fprintf(out, "envc=%d\n", n);
	fprintf(out, "pid=%d\nppid=%d\npgid=%d\nsid=%d\n", getpid(), getppid(),
		getpgid(0), getsid(0));
	fprintf(out, "uid=%d\neuid=%d\ngid=%d\negid=%d\n", getuid(), geteuid(),
		getgid(), getegid());
	fprintf(out, "cwd=%s\n", getcwd(path, sizeof(path)) ? path : "?");
	fprintf(out, "fds=%s\n", fds);
	for (char *p = strtok(fds, " "); p; p = strtok(NULL, " ")) {
		char link[64];
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", p);
		len = readlink(link, path, sizeof(path) - 1);
		path[len > 0 ? len : 0] = '\0';
		fprintf(out, "fd%s=%s\n", p, path);
	}
	sched_getparam(0, &sp);
	fprintf(out, "policy=%d\nprio=%d\n", sched_getscheduler(0),
		sp.sched_priority);
	if ((in = fopen("/proc/self/status", "re"))) {
		while (fgets(line, sizeof(line), in))
			if (!strncmp(line, "SigBlk:", 7) ||
			    !strncmp(line, "SigIgn:", 7) ||
			    !strncmp(line, "SigCgt:", 7))
				fprintf(out, "sig%.3s=%s", line + 3, line + 8);
		fclose(in);
	}
	if ((in = fopen("/proc/self/cgroup", "re"))) {
		while (fgets(line, sizeof(line), in))
			if (!strncmp(line, "0::", 3))
				fprintf(out, "cgroup=%s", line + 3);
		fclose(in);
	}
	fclose(out);
	return argc > 2 ? atoi(argv[2]) : 0;
}
