/*
 * sbx_compat.h - force-included into every file of the Windows build
 * (cmake/windows.cmake).  The few POSIX names the portable layers use and
 * mingw-w64 lacks, each with the Windows meaning that keeps the caller's
 * intent (docs/windows.md, "Building"); what cannot be kept honestly is
 * not provided, and its file is not built.
 */
#ifndef SBX_COMPAT_H
#define SBX_COMPAT_H
#if defined(_WIN32)

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A CRT descriptor that no child inherits: what O_CLOEXEC asks for. */
#ifndef O_CLOEXEC
#  define O_CLOEXEC _O_NOINHERIT
#endif
/* Windows has no controlling terminals and no FIFOs on its file systems. */
#ifndef O_NOCTTY
#  define O_NOCTTY 0
#endif
#ifndef O_NONBLOCK
#  define O_NONBLOCK 0
#endif

/* Signal numbers the portable code passes to a backend's kill (the
 * Windows backend ends the job for each; docs/windows.md). */
#ifndef SIGKILL
#  define SIGKILL 9
#endif
#ifndef SIGHUP
#  define SIGHUP 1
#endif
#ifndef SIGSTOP
#  define SIGSTOP 19
#endif
#ifndef SIGCONT
#  define SIGCONT 18
#endif

/* Reparse points (symlinks, junctions) are reported as links, so the
 * canonical-path walk resolves them through realpath below. */
#ifndef S_IFLNK
#  define S_IFLNK 0120000
#endif
#ifndef S_ISLNK
#  define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#endif

/* Windows has no set-id programs: the real and effective ids never
 * differ (sbx__secure_getenv's check). */
#define getuid() 0
#define geteuid() 0
#define getgid() 0
#define getegid() 0

/* fcntl(fd, F_GETFD) only: 0 for an open CRT descriptor, else -1/EBADF. */
#ifndef F_GETFD
#  define F_GETFD 1
#endif
int sbx_win_fcntl(int fd, int cmd, ...);
#define fcntl sbx_win_fcntl

#ifndef ESTALE
#  define ESTALE 116
#endif

/* Paths are the POSIX spelling of drive paths ("/c/Users/me"); both map
 * them through the Windows path rules (src/windows/posix.c). */
char *sbx_win_realpath(const char *path, char *resolved);
int sbx_win_lstat(const char *path, struct stat *st);
#define realpath(p, r) sbx_win_realpath((p), (r))
#define lstat(p, s) sbx_win_lstat((p), (s))

#endif /* _WIN32 */
#endif /* SBX_COMPAT_H */
