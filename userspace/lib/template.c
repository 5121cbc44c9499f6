// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spawn templates: struct pidspawn_template, and the cache of them under
 * the posix_spawn family.
 *
 * One kind of object serves both: a path and, once made, a template fd
 * (close-on-exec, moved up out of the range where the program's own
 * descriptors land, see move_up()) holding only the executable; every
 * other setting of a spawn goes to the pidfd NEW_EMPTY returns, exactly
 * as spawn.c configures a fresh empty pidfd.  The template is made again
 * when the path leads to another file (checked with stat() before each
 * spawn, and by the kernel at START: ESTALE), when the kernel refuses it
 * to us (EACCES: made before a credential change or by another process)
 * and after fork().  A path the kernel cannot make a template of (not
 * ELF: ENOEXEC; a kernel without templates) is remembered, and spawned
 * by path.
 *
 * One mutex guards every object; it is held for NEW_EMPTY and for making
 * a template, never across START.  The cache only tries it: a spawn that
 * finds it taken goes without a template.  pthread_atfork() takes it
 * around fork() and, in the child, closes every template and empties
 * the cache: a child does not use (nor keep pinned) its parent's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "pidspawn.h"
#include "internal.h"

#define CACHE_SIZE	32	/* paths the cache remembers */
#define CACHE_USES	2	/* a template from the second spawn of a path */
#define EACCES_MAX	8	/* remade after EACCES: then by path only */

struct pidspawn_template {
	struct pidspawn_template *next;	/* objects (not cache entries) */
	char *path;
	int fd;			/* the template; -1: none now */
	pid_t owner;		/* the process that made it */
	dev_t dev;		/* the file @path led to then */
	ino_t ino;
	dev_t fdev;		/* @fd's own file, to tell it is still ours */
	ino_t fino;
	char link[32];		/* and its /proc/self/fd link */
	int plain;		/* by path: NO_KERNEL, or NOT_ELF while @ino */
	int eacces;		/* times remade after EACCES */
	unsigned long used;	/* cache: last use, by the cache's clock */
	unsigned int uses;	/* cache: spawns of @path */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pidspawn_template *objects;
static struct pidspawn_template *cache[CACHE_SIZE];
static unsigned long clock_now;
static int kernel_lacks;	/* no MAKE_TEMPLATE in this kernel */

enum { NO_KERNEL = 1, NOT_ELF };
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void fd_link(int fd, char *buf, size_t size)
{
	char name[32];
	ssize_t n;

	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	n = readlink(name, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * Is t->fd still the template we made?  Not if the program closed it
 * (closefrom() in the process) and the number went to another file: we
 * must not close that one.
 */
static int ours(const struct pidspawn_template *t)
{
	char link[sizeof(t->link)];
	struct stat st;

	if (t->fd < 0 || fstat(t->fd, &st) ||
	    st.st_dev != t->fdev || st.st_ino != t->fino)
		return 0;
	fd_link(t->fd, link, sizeof(link));
	return !strcmp(link, t->link);
}

/*
 * Forget the template, closing it if it is ours (not a copy in a process
 * made without fork(), which may share our file table).
 */
static void drop(struct pidspawn_template *t)
{
	if (t->fd >= 0 && t->owner == getpid() && ours(t))
		syscall(SYS_close, t->fd);
	t->fd = -1;
}

static void forked_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void forked_parent(void)
{
	pthread_mutex_unlock(&lock);
}

/* The child has its parent's templates open, which the kernel refuses it. */
static void forked_child(void)
{
	for (struct pidspawn_template *t = objects; t; t = t->next) {
		if (ours(t))
			syscall(SYS_close, t->fd);
		t->fd = -1;
		t->eacces = 0;
	}
	for (int i = 0; i < CACHE_SIZE; i++) {
		if (cache[i] && ours(cache[i]))
			syscall(SYS_close, cache[i]->fd);
		if (cache[i])
			free(cache[i]->path);
		free(cache[i]);
		cache[i] = NULL;
	}
	pthread_mutex_unlock(&lock);
}

static void atfork_register(void)
{
	pthread_atfork(forked_prepare, forked_parent, forked_child);
}

/*
 * The template fd, moved to the lowest free number from 7/8 of
 * RLIMIT_NOFILE (at most 1024) up: the lowest numbers, where the
 * program's open()s land and which its spawned children see, stay as
 * they would be without it.  -1 (closed) when there is no room there.
 */
static int move_up(int fd)
{
	struct rlimit rl;
	rlim_t lim = getrlimit(RLIMIT_NOFILE, &rl) ? 0 : rl.rlim_cur;
	int up;

	if (lim > 1024)
		lim = 1024;
	up = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, (int)(lim - lim / 8));
	syscall(SYS_close, fd);
	return up;
}

/* Make t's template; 0 or an error number.  With the lock held. */
static int make(struct pidspawn_template *t)
{
	struct stat st;
	int b, fd, err;

	if (__atomic_load_n(&kernel_lacks, __ATOMIC_RELAXED)) {
		t->plain = NO_KERNEL;
		return EOPNOTSUPP;
	}
	if (stat(t->path, &st))
		return errno;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	b = pidspawn_create(0);
	if (b < 0)
		return errno;
	fd = pidspawn_set_exec_path(b, AT_FDCWD, t->path) ? -1 :
	     pidspawn_make_template(b, 0);
	err = fd < 0 ? errno : 0;
	syscall(SYS_close, b);
	if (fd < 0) {
		/* No such command; no ELF executable (a script). */
		if (err == EOPNOTSUPP || err == ENOSYS) {
			__atomic_store_n(&kernel_lacks, 1, __ATOMIC_RELAXED);
			t->plain = NO_KERNEL;
		} else if (err == ENOEXEC || err == EINVAL) {
			t->plain = NOT_ELF;
		}
		return err;
	}
	fd = move_up(fd);
	if (fd < 0)
		return EMFILE;
	pthread_once(&atfork_once, atfork_register);
	t->fd = fd;
	t->owner = getpid();
	if (fstat(fd, &st) == 0) {
		t->fdev = st.st_dev;
		t->fino = st.st_ino;
	}
	fd_link(fd, t->link, sizeof(t->link));
	return 0;
}

/* A new empty pidfd from t's template, made if need be; -1: none. */
static int new_empty(struct pidspawn_template *t)
{
	struct stat st;
	int fd = -1;

	for (int tries = 0; tries < 2 && fd < 0; tries++) {
		/* A copy from a fork() that did not run our handler. */
		if (t->fd >= 0 && t->owner != getpid())
			t->fd = -1;
		/*
		 * Replaced (a package manager's rename) or gone: a template
		 * would fail its START with ESTALE.  A script replaced by
		 * an ELF executable may have one now.
		 */
		if ((t->fd >= 0 || t->plain == NOT_ELF) &&
		    (stat(t->path, &st) || st.st_dev != t->dev ||
		     st.st_ino != t->ino)) {
			drop(t);
			if (t->plain == NOT_ELF)
				t->plain = 0;
		}
		if (t->fd < 0 && (t->plain || make(t)))
			break;
		fd = pidspawn_template_new(t->fd, 0);
		if (fd >= 0)
			break;
		if (errno == EACCES) {
			/* Made under other credentials: again, not forever. */
			if (++t->eacces >= EACCES_MAX)
				t->plain = NO_KERNEL;
			drop(t);
		} else if (errno == EBADF || errno == EINVAL) {
			/* The program closed it: the number is not ours. */
			t->fd = -1;
		} else {
			break;		/* EMFILE, ENOMEM: by path, this once */
		}
	}
	return fd;
}

/*
 * Whether a spawn could be started again, unseen, after its first child
 * died at the exec with ESTALE: its file actions touch nothing outside
 * the child (no open, which may create a file or open a FIFO, no
 * tcsetpgrp).  The attributes all act on the child alone.
 */
int template_repeatable(const struct spawn *s)
{
	const struct action *a = s->fa ? ACTIONS(s->fa) : NULL;
	int n = s->fa ? s->fa->__used : 0;

	for (int i = 0; i < n; i++)
		if (a[i].tag == ACT_OPEN || a[i].tag == ACT_TCSETPGRP)
			return 0;
	return 1;
}

/* PIDSPAWN_TEMPLATES=1, read once. */
static int cache_enabled(const struct spawn *s)
{
	static int env = -1;
	int on = __atomic_load_n(&env, __ATOMIC_RELAXED);

	if (s->attr && (s->attr->__flags & POSIX_SPAWN_TEMPLATE_NP))
		return 1;
	if (on < 0) {
		const char *v = getenv("PIDSPAWN_TEMPLATES");

		on = v && !strcmp(v, "1");
		__atomic_store_n(&env, on, __ATOMIC_RELAXED);
	}
	return on;
}

/*
 * The absolute path posix_spawnp's search would execute, found as the
 * child will look (search_next()), or NULL when in doubt: a relative
 * element before it, a name that exists but is no executable file for
 * us, an id change in the child.  The child still searches by itself
 * should the template's start fail as an exec could (spawn.c).
 */
static const char *resolve(const struct spawn *s, char *buf, size_t size)
{
	struct search st;
	struct stat sb;

	if (!s->search || strchr(s->file, '/'))
		return s->file[0] == '/' ? s->file : NULL;
	if (!*s->file || search_init(&st, s->file) ||
	    st.plen + st.flen + 1 > size ||
	    (s->attr && (s->attr->__flags & POSIX_SPAWN_RESETIDS)))
		return NULL;
	while (search_next(&st, buf)) {
		if (buf[0] != '/')
			return NULL;
		if (!stat(buf, &sb))
			return S_ISREG(sb.st_mode) &&
			       !faccessat(AT_FDCWD, buf, X_OK, AT_EACCESS) ?
			       buf : NULL;
		if (errno != ENOENT && errno != ENOTDIR)
			return NULL;
	}
	return NULL;
}

/* The cache's entry for @path, made (evicting the least recently used). */
static struct pidspawn_template *cache_entry(const char *path)
{
	struct pidspawn_template *t;
	int i, lru = 0;

	for (i = 0; i < CACHE_SIZE && cache[i]; i++) {
		if (!strcmp(cache[i]->path, path))
			return cache[i];
		if (cache[i]->used < cache[lru]->used)
			lru = i;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		free(t);
		return NULL;
	}
	t->fd = -1;
	if (i == CACHE_SIZE) {
		i = lru;
		drop(cache[i]);
		free(cache[i]->path);
		free(cache[i]);
	}
	cache[i] = t;
	return t;
}

int template_empty(const struct spawn *s)
{
	struct pidspawn_template *t;
	char buf[PATH_MAX];
	const char *path;
	int fd = -1;

	if (s->tmpl) {
		pthread_mutex_lock(&lock);
		fd = new_empty(s->tmpl);
		pthread_mutex_unlock(&lock);
		return fd;
	}
	if (!cache_enabled(s) || __atomic_load_n(&kernel_lacks, __ATOMIC_RELAXED) ||
	    !template_repeatable(s) || !(path = resolve(s, buf, sizeof(buf))) ||
	    strlen(path) >= PATH_MAX)
		return -1;
	if (pthread_mutex_trylock(&lock))
		return -1;
	t = cache_entry(path);
	if (t) {
		t->used = ++clock_now;
		if (t->uses < CACHE_USES)
			t->uses++;
		if (t->uses >= CACHE_USES)
			fd = new_empty(t);
	}
	pthread_mutex_unlock(&lock);
	return fd;
}

struct pidspawn_template *pidspawn_template_create(const char *path,
						   unsigned int flags)
{
	struct pidspawn_template *t;

	if (flags || !path || path[0] != '/') {
		errno = EINVAL;
		return NULL;
	}
	if (strlen(path) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->fd = -1;
	pthread_mutex_lock(&lock);
	t->next = objects;
	objects = t;
	if (pidspawn_backend() == PIDSPAWN_NATIVE) {
		int saved = errno;

		make(t);
		errno = saved;
	}
	pthread_mutex_unlock(&lock);
	return t;
}

const char *template_path(const struct pidspawn_template *t)
{
	return t->path;
}

int pidspawn_template_fd(const struct pidspawn_template *tmpl)
{
	return __atomic_load_n(&tmpl->fd, __ATOMIC_RELAXED);
}

void pidspawn_template_free(struct pidspawn_template *tmpl)
{
	if (!tmpl)
		return;
	pthread_mutex_lock(&lock);
	for (struct pidspawn_template **p = &objects; *p; p = &(*p)->next) {
		if (*p == tmpl) {
			*p = tmpl->next;
			break;
		}
	}
	drop(tmpl);
	pthread_mutex_unlock(&lock);
	free(tmpl->path);
	free(tmpl);
}

/*
 * The object's or the cache's next empty pidfd for a caller's own
 * builder: template_empty() as a spawn of @path without file actions or
 * attributes (but POSIX_SPAWN_TEMPLATE_NP) would ask it.
 */
int pidspawn_template_builder(struct pidspawn_template *tmpl,
			      const char *path, unsigned int flags)
{
	posix_spawnattr_t attr = { .__flags = POSIX_SPAWN_TEMPLATE_NP };
	struct spawn s = { .name = "pidspawn_template_builder", .tmpl = tmpl,
			   .attr = flags ? &attr : NULL };
	int fd;

	if ((flags & ~POSIX_SPAWN_TEMPLATE_NP) ||
	    (!tmpl && (!path || path[0] != '/'))) {
		errno = EINVAL;
		return -1;
	}
	s.file = tmpl ? tmpl->path : path;
	fd = pidspawn_backend() == PIDSPAWN_NATIVE ? template_empty(&s) : -1;
	if (fd < 0)
		errno = ENOENT;
	return fd;
}
