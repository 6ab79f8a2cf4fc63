/*
 * seccomp_defs.h - constants shared by seccomp.c and seccomp_embed.c.
 * Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_LINUX_SECCOMP_DEFS_H
#define SBX_LINUX_SECCOMP_DEFS_H

#include <sys/ioctl.h>

#ifndef CLONE_NEWCGROUP
#  define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#  define CLONE_NEWTIME 0x00000080
#endif
#ifndef SOCK_PACKET
#  define SOCK_PACKET 10
#endif
#ifndef AF_PACKET
#  define AF_PACKET 17
#endif
/* The request numbers differ per architecture (powerpc has its own), so
 * they must come from <sys/ioctl.h>, never from a fallback. */
#if !defined(TIOCSTI) || !defined(TIOCLINUX)
#  error "<sys/ioctl.h> does not define TIOCSTI/TIOCLINUX"
#endif

#define SC_OPTS_ALL             (SBX__SC_DENY_INET | SBX__SC_DENY_UNIX_PATH | \
                                 SBX__SC_DENY_METADATA | SBX__SC_UNIX_STREAM | \
                                 SBX__SC_INET_NOTIFY | SBX__SC_HOST_NS)

/* clone's flags argument (s390 swaps newsp and flags). */
#if defined(__s390__) || defined(__s390x__)
#  define SC_CLONE_FLAGS_ARG 1
#else
#  define SC_CLONE_FLAGS_ARG 0
#endif

#endif /* SBX_LINUX_SECCOMP_DEFS_H */
