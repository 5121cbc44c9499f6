// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Built against glibc alone, so its posix_spawn reference is versioned
 * (posix_spawn@GLIBC_2.15): prints which object that reference binds
 * to, then spawns /bin/true and prints the result.  Under the LD_PRELOAD
 * shim the object must be the shim.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(void)
{
	char *argv[] = { "true", NULL };
	Dl_info info;
	pid_t pid;
	int err, st = -1;

	if (!dladdr((void *)posix_spawn, &info))
		return 1;
	printf("posix_spawn from %s\n", info.dli_fname);
	err = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
	if (!err)
		waitpid(pid, &st, 0);
	printf("posix_spawn: %s, status %d\n", strerror(err), st);
	return err;
}
