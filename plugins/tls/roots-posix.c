/* plugins/tls/roots.h on POSIX systems: the system's roots are a PEM
 * bundle (/etc/ssl/certs/ca-certificates.crt and its kin), which tls.c
 * reads as a file, so there is no other store to add. */
#include "plugins/tls/roots.h"

int srt__tls_os_roots(srt__tls_root_add add, void *arg)
{
	(void)add;
	(void)arg;
	return 0;
}
