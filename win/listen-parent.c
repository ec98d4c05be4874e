/* A parent that hands srt.exe a listening socket by inheritance, as
 * "srt proxy --listen-fd N" expects on Windows (win/test.sh):
 *
 *   listen-parent.exe MODE SRT.EXE [ARGS...]
 *
 * MODE "listen": a TCP socket on 127.0.0.1, an ephemeral port, listening;
 * "bound": the same socket bound but not listening (srt.exe must refuse
 * it). The socket is made inheritable and srt.exe is started with
 * handles inherited and this process's standard handles, its arguments
 * followed by "--listen-fd <handle value>". The port goes to stderr as
 * "listen-parent: port N" before srt.exe starts; the exit status is
 * srt.exe's. Winsock alone, none of srt's code.
 *
 *   listen-parent.exe listen listen-parent.exe probe
 *
 * runs this program as the child instead ("probe ... --listen-fd N"):
 * what Winsock answers in a child about the handle it inherited. Status 0:
 * getsockopt(SO_ACCEPTCONN) says listening; 3: getsockopt fails while
 * getsockname works on the same handle (the handle is a socket, this
 * process's Winsock refuses to answer for it); 1: anything else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

static int probe(unsigned long long h)
{
	WSADATA wsa;
	struct sockaddr_in a;
	int alen = sizeof(a), v = 0, vlen = sizeof(v), g, ge, n, ne;

	if (WSAStartup(MAKEWORD(2, 2), &wsa))
		return 1;
	g = getsockopt((SOCKET)h, SOL_SOCKET, SO_ACCEPTCONN, (char *)&v, &vlen);
	ge = WSAGetLastError();
	n = getsockname((SOCKET)h, (struct sockaddr *)&a, &alen);
	ne = WSAGetLastError();
	printf("handle %llu: getsockopt(SO_ACCEPTCONN) %s %d, getsockname %s %d\n", h,
	       g ? "error" : "listening", g ? ge : v, n ? "error" : "port", n ? ne : ntohs(a.sin_port));
	if (!g && v)
		return 0;
	return g && !n ? 3 : 1;
}

int main(int argc, char **argv)
{
	WSADATA wsa;
	SOCKET s;
	struct sockaddr_in a;
	int alen = sizeof(a), i;
	char cmd[8192];
	size_t at = 0;
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;
	DWORD code = 1;

	if (argc == 4 && !strcmp(argv[1], "probe") && !strcmp(argv[2], "--listen-fd"))
		return probe(strtoull(argv[3], NULL, 10));
	if (argc < 3 || (strcmp(argv[1], "listen") && strcmp(argv[1], "bound"))) {
		fprintf(stderr, "usage: listen-parent.exe listen|bound SRT.EXE [ARGS...]\n");
		return 2;
	}
	if (WSAStartup(MAKEWORD(2, 2), &wsa))
		return 1;
	/* WSASocket without WSA_FLAG_NO_HANDLE_INHERIT: an inheritable handle */
	s = WSASocketW(AF_INET, SOCK_STREAM, IPPROTO_TCP, NULL, 0, WSA_FLAG_OVERLAPPED);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s == INVALID_SOCKET || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    (!strcmp(argv[1], "listen") && listen(s, 16)) ||
	    getsockname(s, (struct sockaddr *)&a, &alen) ||
	    !SetHandleInformation((HANDLE)s, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT)) {
		fprintf(stderr, "listen-parent: socket: error %d\n", WSAGetLastError());
		return 1;
	}
	for (i = 2; i < argc; i++)
		at += (size_t)snprintf(cmd + at, at < sizeof(cmd) ? sizeof(cmd) - at : 0, "\"%s\" ", argv[i]);
	at += (size_t)snprintf(cmd + at, at < sizeof(cmd) ? sizeof(cmd) - at : 0, "--listen-fd %llu",
			       (unsigned long long)s);
	if (at >= sizeof(cmd)) {
		fprintf(stderr, "listen-parent: command line too long\n");
		return 2;
	}
	fprintf(stderr, "listen-parent: port %u\n", ntohs(a.sin_port));
	fflush(stderr);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
	si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	if (!CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
		fprintf(stderr, "listen-parent: CreateProcess: error %lu\n", GetLastError());
		return 1;
	}
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, &code);
	return (int)code;
}
