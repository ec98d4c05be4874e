/* srt-connect's relay on Windows (proxies/connect.h; win/build.sh builds
 * srt-connect.exe). ssh.exe hands the ProxyCommand pipes, which no
 * Windows call waits on together with a socket (WSAPoll takes sockets
 * only), so each direction has its own blocking copy: a thread copies
 * standard input to the tunnel and shuts the tunnel's sending side at
 * its end, the calling thread copies the tunnel to standard output. The
 * process ends when the tunnel does, whatever the other thread is
 * blocked in: returning from main ends every thread. */
#include "config.h"

#include <process.h>

#include <winsock2.h>
#include <windows.h>

#include "proxies/connect.h"

/* Standard input -> the tunnel. A failed send ends the process with
 * status 1 at once, as the POSIX relay returns 1 from main there: the
 * other thread may be blocked in recv for as long as the peer is
 * silent. */
static unsigned __stdcall stdin_to_tunnel(void *arg)
{
	int sock = (int)(INT_PTR)arg;
	HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
	char buf[8192];

	for (;;) {
		DWORD got = 0;

		/* the end of a pipe (ERROR_BROKEN_PIPE), of a file (0 bytes),
		 * no input at all, or an error: all end the input alike */
		if (in == NULL || in == INVALID_HANDLE_VALUE || !ReadFile(in, buf, sizeof(buf), &got, NULL) ||
		    got == 0)
			break;
		if (srt__connect_send(sock, buf, got) < 0)
			ExitProcess(1);
	}
	shutdown((SOCKET)sock, SD_SEND);
	return 0;
}

/* All n bytes of buf to the handle: 0, or -1. */
static int write_all(HANDLE h, const char *buf, DWORD n)
{
	while (n) {
		DWORD put = 0;

		if (!WriteFile(h, buf, n, &put, NULL) || put == 0)
			return -1;
		buf += put;
		n -= put;
	}
	return 0;
}

int srt__connect_relay(int sock)
{
	HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
	uintptr_t t;
	char buf[8192];

	if (out == NULL || out == INVALID_HANDLE_VALUE)
		return 1;
	t = _beginthreadex(NULL, 0, stdin_to_tunnel, (void *)(INT_PTR)sock, 0, NULL);
	if (!t)
		return 1;
	CloseHandle((HANDLE)t);
	for (;;) {
		int r = recv((SOCKET)sock, buf, sizeof(buf), 0);

		if (r < 0)
			return 1;
		if (r == 0)
			return 0;
		if (write_all(out, buf, (DWORD)r) < 0)
			return 1;
	}
}
