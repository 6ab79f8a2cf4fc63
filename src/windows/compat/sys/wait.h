/*
 * sys/wait.h for the Windows build.  The Windows backend encodes a
 * process's end as a wait status the POSIX way (src/windows/proc.c): an
 * exit code c as (c & 0xff) << 8, a job termination for signal s as the
 * exit code 128 + s.  These are glibc's macros over that encoding.
 */
#ifndef SBX_COMPAT_SYS_WAIT_H
#define SBX_COMPAT_SYS_WAIT_H
#define WEXITSTATUS(s)  (((s) >> 8) & 0xff)
#define WTERMSIG(s)     ((s) & 0x7f)
#define WIFEXITED(s)    (WTERMSIG(s) == 0)
#define WIFSIGNALED(s)  (((signed char) (((s) & 0x7f) + 1) >> 1) > 0)
#define WIFSTOPPED(s)   (((s) & 0xff) == 0x7f)
#endif
