// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Built against glibc alone, so its posix_spawn reference is versioned
 * (posix_spawn@GLIBC_2.15): prints which object that reference binds
 * to, then spawns /bin/true and prints the result.  Under the LD_PRELOAD
 * shim the object must be the shim.  With arguments, it spawns them
 * instead (a path and its arguments), its output going to ours.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **args)
{
	char *argv[] = { "true", NULL };
	char **spawned = argc > 1 ? args + 1 : argv;
	const char *path = argc > 1 ? args[1] : "/bin/true";
	Dl_info info;
	pid_t pid;
	int err, st = -1;

	if (!dladdr((void *)posix_spawn, &info))
		return 1;
	printf("posix_spawn from %s\n", info.dli_fname);
	fflush(stdout);
	err = posix_spawn(&pid, path, NULL, NULL, spawned, environ);
	if (!err)
		waitpid(pid, &st, 0);
	printf("posix_spawn: %s, status %d\n", strerror(err), st);
	return err;
}
