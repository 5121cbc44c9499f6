/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the library's files share; nothing here is exported. */
#ifndef PIDSPAWN_INTERNAL_H
#define PIDSPAWN_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <spawn.h>

#define HIDDEN __attribute__((visibility("hidden")))

/*
 * One file action.  posix_spawn_file_actions_t is glibc's 80-byte object;
 * its __actions pointer, opaque to programs, holds an array of these,
 * __allocated long, __used in use, in the order added.
 */
enum action_tag {
	ACT_CLOSE, ACT_OPEN, ACT_DUP2, ACT_CHDIR, ACT_FCHDIR, ACT_CLOSEFROM,
	ACT_TCSETPGRP,
};

struct action {
	enum action_tag tag;
	int fd;			/* the fd acted on; dup2's source */
	int newfd;		/* dup2's target */
	int oflag;		/* open */
	unsigned int mode;	/* open */
	char *path;		/* open, chdir: a copy owned by the action */
};

/* The kernel's sigset_t: the first _NSIG bits of the C library's. */
#define KSIGSET_SIZE	(_NSIG / 8)

/*
 * glibc's own real-time signals, SIGCANCEL (32) and SIGSETXID (33), in
 * the first word of a sigset: glibc never leaves them blocked.
 */
#define GLIBC_SIGNALS	(3UL << 31)

#define ACTIONS(fa)	((const struct action *)(fa)->__actions)

/* glibc 2.39 keeps the cgroup fd in the first int of 2.36's padding. */
#define ATTR_CGROUP(attr)	((attr)->__pad[0])

/*
 * posix_spawnp's search as glibc's execvpe does it, without the shell
 * fallback: PATH from the caller's environment (not envp), glibc's
 * default when unset, an empty element meaning the working directory
 * (search.c).
 */
struct search {
	const char *next;	/* the rest of PATH; NULL when done */
	const char *file;
	size_t flen;		/* strlen(file) + 1 */
	size_t plen;		/* strlen(PATH) + 1, at most PATH_MAX */
};

int search_init(struct search *st, const char *file) HIDDEN;
int search_next(struct search *st, char *buf) HIDDEN;
int search_goes_on(int err) HIDDEN;

/* One posix_spawn-family call. */
struct spawn {
	const char *name;	/* the function, for PIDSPAWN_TRACE */
	const char *file;
	int search;		/* posix_spawnp, pidfd_spawnp */
	int want_pidfd;		/* pidfd_spawn, pidfd_spawnp */
	const posix_spawn_file_actions_t *fa;
	const posix_spawnattr_t *attr;
	char *const *argv;
	char *const *envp;
	struct pidspawn_template *tmpl;	/* pidspawn_template_spawn() */
	int pid;		/* results */
	int pidfd;
	int templated;		/* the last attempt used a template */
};

/*
 * The shim's children's environment (preload.c, in the shim only: NULL
 * in the library).  A weak hidden reference costs no relocation at load.
 */
char **shim_child_envp(char *const envp[]) HIDDEN __attribute__((weak));

/* The clone() fallback (fallback.c): 0 or an error number. */
int spawn_fallback(struct spawn *s) HIDDEN;

/* PIDFD_FD_CLEAR_CLOEXEC, for files that cannot include <linux/pidfd.h>. */
#define CLEAR_CLOEXEC		1U

/*
 * Templates (template.c): a new empty pidfd from the spawn's template (its
 * object's, or the cache's when the cache applies to the spawn), or -1:
 * spawn without one.  Whether a spawn may be started again after its
 * child died at the exec with ESTALE.  An object's absolute path.
 */
int template_empty(const struct spawn *s) HIDDEN;
int template_repeatable(const struct spawn *s) HIDDEN;
const char *template_path(const struct pidspawn_template *t) HIDDEN;

#endif
