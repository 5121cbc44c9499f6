// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_spawnp's PATH search (struct search, internal.h), one file for its
 * three users: the native path lists the names for the kernel to try
 * (spawn.c), the fallback's child tries them itself (fallback.c), and the
 * template cache finds the file the search would execute (template.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* glibc's confstr(_CS_PATH), its search path when PATH is unset. */
#define DEFAULT_PATH	"/bin:/usr/bin"

int search_init(struct search *st, const char *file)
{
	const char *path = getenv("PATH");

	if (!path)
		path = DEFAULT_PATH;
	st->next = path;
	st->file = file;
	st->flen = strnlen(file, NAME_MAX + 1) + 1;
	st->plen = strnlen(path, PATH_MAX - 1) + 1;
	return st->flen - 1 > NAME_MAX ? ENAMETOOLONG : 0;
}

/*
 * The next name to try in @buf (st->plen + st->flen + 1 bytes): element,
 * '/', file; the file alone for an empty element.  An element too long
 * for the buffer is passed over as glibc passes it, which tries the
 * working directory in its place unless it is the last.  0 when done.
 */
int search_next(struct search *st, char *buf)
{
	const char *p = st->next, *end;
	size_t n;

	if (!p)
		return 0;
	end = strchrnul(p, ':');
	st->next = *end ? end + 1 : NULL;
	n = end - p;
	if (n >= st->plen) {
		if (!st->next)
			return 0;
		n = 0;
	}
	memcpy(buf, p, n);
	buf[n] = '/';
	memcpy(buf + n + (n > 0), st->file, st->flen);
	return 1;
}

/* The errors on which glibc's search goes on to the next element. */
int search_goes_on(int err)
{
	return err == EACCES || err == ENOENT || err == ESTALE ||
	       err == ENOTDIR || err == ENODEV || err == ETIMEDOUT;
}
