/* plugins/tls/roots.h on Windows: the roots are the "ROOT" system store
 * of the current user (which includes the machine's), as every Windows
 * TLS client trusts them; Windows has no PEM bundle at a fixed path. */
#include <windows.h>
#include <wincrypt.h>

#include "plugins/tls/roots.h"

int srt__tls_os_roots(srt__tls_root_add add, void *arg)
{
	HCERTSTORE store = CertOpenSystemStoreA(0, "ROOT");
	PCCERT_CONTEXT c = NULL;

	if (!store)
		return -1;
	while ((c = CertEnumCertificatesInStore(store, c)))
		if (c->dwCertEncodingType & X509_ASN_ENCODING)
			add(arg, c->pbCertEncoded, c->cbCertEncoded);
	CertCloseStore(store, 0);
	return 0;
}
