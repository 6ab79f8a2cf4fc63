/* arpa/inet.h for the Windows build: inet_pton and friends (ws2_32). */
#ifndef SBX_COMPAT_ARPA_INET_H
#define SBX_COMPAT_ARPA_INET_H
#include <winsock2.h>
#include <ws2tcpip.h>
#endif
