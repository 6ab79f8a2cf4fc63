/* netinet/in.h for the Windows build (ws2_32). */
#ifndef SBX_COMPAT_NETINET_IN_H
#define SBX_COMPAT_NETINET_IN_H
#include <winsock2.h>
#include <ws2tcpip.h>
#endif
