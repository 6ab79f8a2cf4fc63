/* sys/socket.h for the Windows build: the socket types (ws2_32). */
#ifndef SBX_COMPAT_SYS_SOCKET_H
#define SBX_COMPAT_SYS_SOCKET_H
#include <winsock2.h>
#include <ws2tcpip.h>
#endif
