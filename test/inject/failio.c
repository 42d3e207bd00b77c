/*
 * failio.c: a test-only LD_PRELOAD library that makes the I/O of a
 * server's state file fail or stall on demand, so that the TAP tests can
 * reproduce a full disk, a failing fsync or a stalled disk.  Never part of
 * the extension.
 *
 * It wraps write(), pwrite() and fsync().  A call on a file whose path
 * contains "/pg_snowflake/" (resolved through /proc/self/fd) is changed
 * while a control file exists in the directory named by $FAILIO_DIR:
 *
 *	fail_write		write() and pwrite() fail with ENOSPC
 *	fail_fsync		fsync() fails with EIO
 *	stall_fsync		fsync() waits until the file is removed; while it
 *					waits, the file "stalled" exists
 *
 * Every other call goes straight to the C library.
 *
 * Built by the tests: cc -shared -fPIC -o failio.so failio.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int
control_exists(const char *name)
{
	const char *dir = getenv("FAILIO_DIR");
	char		path[4096];

	if (dir == NULL)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static int
is_state_file(int fd)
{
	char		link[64];
	char		target[4096];
	ssize_t		len;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return 0;
	target[len] = '\0';
	return strstr(target, "/pg_snowflake/") != NULL;
}

/* the control file applies to this call: a state file, and it exists */
static int
applies(int fd, const char *name)
{
	return control_exists(name) && is_state_file(fd);
}

ssize_t
write(int fd, const void *buf, size_t count)
{
	static ssize_t (*real) (int, const void *, size_t) = NULL;

	if (real == NULL)
		real = dlsym(RTLD_NEXT, "write");
	if (applies(fd, "fail_write"))
	{
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, count);
}

ssize_t
pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	static ssize_t (*real) (int, const void *, size_t, off_t) = NULL;

	if (real == NULL)
		real = dlsym(RTLD_NEXT, "pwrite");
	if (applies(fd, "fail_write"))
	{
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, count, offset);
}

ssize_t
pwrite64(int fd, const void *buf, size_t count, off_t offset)
{
	return pwrite(fd, buf, count, offset);
}

int
fsync(int fd)
{
	static int	(*real) (int) = NULL;

	if (real == NULL)
		real = dlsym(RTLD_NEXT, "fsync");
	if (applies(fd, "stall_fsync"))
	{
		const char *dir = getenv("FAILIO_DIR");
		char		path[4096];
		FILE	   *f;

		snprintf(path, sizeof(path), "%s/stalled", dir);
		if ((f = fopen(path, "w")) != NULL)
			fclose(f);
		while (control_exists("stall_fsync"))
			usleep(10000);
		unlink(path);
	}
	if (applies(fd, "fail_fsync"))
	{
		errno = EIO;
		return -1;
	}
	return real(fd);
}
