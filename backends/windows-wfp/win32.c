/* windows-wfp: the plan applied with Win32 calls (win32.h). Built with
 * mingw-w64 only. */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#define UNICODE
#define _UNICODE
#include <winsock2.h>
#include <windows.h>
#include <initguid.h>
#include <aclapi.h>
#include <dpapi.h>
#include <fwpmu.h>
#include <lm.h>
#include <sddl.h>
#include <userenv.h>
#include <wincrypt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/windows-wfp/win32.h"

/* mingw-w64's fwpmu.h lacks these; the values are those of the Windows
 * SDK's fwpmu.h and fwpmtypes.h. */
#ifndef FWPM_FILTER_FLAG_PERSISTENT
#define FWPM_FILTER_FLAG_PERSISTENT 0x00000001
#endif
#ifndef FWPM_PROVIDER_FLAG_PERSISTENT
#define FWPM_PROVIDER_FLAG_PERSISTENT 0x00000001
#endif
#ifndef FWPM_SUBLAYER_FLAG_PERSISTENT
#define FWPM_SUBLAYER_FLAG_PERSISTENT 0x00000001
#endif
DEFINE_GUID(SRT_LAYER_CONNECT_V4, 0xc38d57d1, 0x05a7, 0x4c33, 0x90, 0x4f, 0x7f, 0xbc, 0xee, 0xe6, 0x0e, 0x82);
DEFINE_GUID(SRT_LAYER_CONNECT_V6, 0x4a72393b, 0x319f, 0x44bc, 0x84, 0xc3, 0xba, 0x54, 0xdc, 0xb3, 0xb6, 0xb4);
DEFINE_GUID(SRT_COND_USER_ID, 0xaf043a0a, 0xb34d, 0x4f86, 0x97, 0x9c, 0xc9, 0x03, 0x71, 0xaf, 0x6e, 0x66);
DEFINE_GUID(SRT_COND_REMOTE_ADDRESS, 0xb235ae9a, 0x1d64, 0x49b8, 0xa4, 0x4c, 0x5f, 0xf3, 0xd9, 0x09, 0x50, 0x45);
DEFINE_GUID(SRT_COND_REMOTE_PORT, 0xc35a604d, 0xd22b, 0x4e1a, 0x91, 0xb4, 0x68, 0xf6, 0x74, 0xee, 0x67, 0x4b);

#define REG_KEY L"SOFTWARE\\sandbox-runtime"
#define REG_VALUE L"SandboxPassword"
#define PATHW 1024

/* The objects install creates, by fixed keys, so uninstall removes exactly
 * them. Filter i is FILTER_BASE with its last byte set to i. */
DEFINE_GUID(SRT_WFP_PROVIDER, 0x5c7f0a61, 0x3b1e, 0x4f0e, 0x9a, 0x57, 0x73, 0x72, 0x74, 0x2d, 0x77, 0x00);
DEFINE_GUID(SRT_WFP_SUBLAYER, 0x5c7f0a61, 0x3b1e, 0x4f0e, 0x9a, 0x57, 0x73, 0x72, 0x74, 0x2d, 0x77, 0x01);
DEFINE_GUID(SRT_WFP_FILTER_BASE, 0x5c7f0a61, 0x3b1e, 0x4f0e, 0x9a, 0x57, 0x73, 0x72, 0x74, 0x2d, 0x7f, 0x00);

static int fail(const char *layer, DWORD err, const char *fix)
{
	fprintf(stderr, "srt-win: %s failed (error %lu): %s\n", layer, (unsigned long)err, fix);
	return 1;
}

/* UTF-8 '/' path or name -> UTF-16 with '\'. */
static int to_w(const char *s, wchar_t *w, int n, int slashes)
{
	int i, len = MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);

	if (len <= 0)
		return -1;
	for (i = 0; slashes && w[i]; i++)
		if (w[i] == L'/')
			w[i] = L'\\';
	return 0;
}

static int to_utf8(const wchar_t *w, char *s, int n)
{
	int i, len = WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);

	if (len <= 0)
		return -1;
	for (i = 0; s[i]; i++)
		if (s[i] == '\\')
			s[i] = '/';
	return 0;
}

/* ---- the filesystem as the plan sees it ---- */

static enum srt__winfs_kind kind_attrs(DWORD a)
{
	if (a & FILE_ATTRIBUTE_REPARSE_POINT)
		return SRT__WINFS_LINK;
	return (a & FILE_ATTRIBUTE_DIRECTORY) ? SRT__WINFS_DIR : SRT__WINFS_FILE;
}

static enum srt__winfs_kind fs_kind(void *ctx, const char *path)
{
	wchar_t w[PATHW];
	DWORD a;

	(void)ctx;
	if (to_w(path, w, PATHW, 1))
		return SRT__WINFS_MISSING;
	a = GetFileAttributesW(w);
	return a == INVALID_FILE_ATTRIBUTES ? SRT__WINFS_MISSING : kind_attrs(a);
}

struct entry {
	char name[MAX_PATH * 3];
	enum srt__winfs_kind kind;
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* Entries in name order, like the plan tests' filesystem. */
static int fs_list(void *ctx, const char *dir, srt__winfs_entry_fn fn, void *c)
{
	wchar_t w[PATHW];
	WIN32_FIND_DATAW fd;
	HANDLE h;
	struct entry *v = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	(void)ctx;
	if (to_w(dir, w, PATHW - 3, 1))
		return -1;
	wcscat(w, L"\\*");
	h = FindFirstFileW(w, &fd);
	if (h == INVALID_HANDLE_VALUE)
		return -1;
	do {
		if (!wcscmp(fd.cFileName, L".") || !wcscmp(fd.cFileName, L".."))
			continue;
		if (n == cap) {
			struct entry *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv) {
				rc = SRT_E_NOMEM;
				break;
			}
			v = nv;
		}
		if (to_utf8(fd.cFileName, v[n].name, sizeof(v[n].name)))
			continue;
		v[n].kind = kind_attrs(fd.dwFileAttributes);
		n++;
	} while (FindNextFileW(h, &fd));
	FindClose(h);
	if (v)
		qsort(v, n, sizeof(*v), cmp_entry);
	for (i = 0; !rc && i < n; i++)
		rc = fn(c, v[i].name, v[i].kind);
	free(v);
	return rc;
}

const struct srt__winfs srt__win32_fs = { fs_kind, fs_list, NULL };

/* ---- what install and uninstall touch ---- */

static void filter_key(GUID *g, size_t i)
{
	*g = SRT_WFP_FILTER_BASE;
	g->Data4[7] = (unsigned char)i;
}

static void print_guid(FILE *out, const GUID *g)
{
	fprintf(out, "{%08lx-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
		(unsigned long)g->Data1, g->Data2, g->Data3, g->Data4[0], g->Data4[1],
		g->Data4[2], g->Data4[3], g->Data4[4], g->Data4[5], g->Data4[6], g->Data4[7]);
}

void srt__win32_print_install(const struct srt__winplan *p, FILE *out)
{
	size_t i;

	fprintf(out, "create account %s (NetUserAdd, random password)\n", p->user);
	fprintf(out, "create group %s, add %s (NetLocalGroupAdd)\n", p->group, p->user);
	fprintf(out, "write HKLM\\SOFTWARE\\sandbox-runtime\\SandboxPassword (CryptProtectData, "
		"machine scope)\n");
	fprintf(out, "write HKLM\\SOFTWARE\\sandbox-runtime\\ProxyPortLow %d, ProxyPortHigh %d "
		"(the ports the filters permit, which a run's windows.proxyPortRange must lie inside)\n",
		p->port_lo, p->port_hi);
	fprintf(out, "wfp provider ");
	print_guid(out, &SRT_WFP_PROVIDER);
	fprintf(out, " persistent\nwfp sublayer ");
	print_guid(out, &SRT_WFP_SUBLAYER);
	fprintf(out, " weight 0x8000 persistent\n");
	for (i = 0; i < p->n_filters; i++) {
		const struct srt__wfp_filter *f = &p->filters[i];
		GUID g;

		filter_key(&g, i);
		fprintf(out, "wfp filter ");
		print_guid(out, &g);
		fprintf(out, " %s %s weight %u user=%s",
			f->layer == SRT__WFP_CONNECT_V4 ? "ALE_AUTH_CONNECT_V4" : "ALE_AUTH_CONNECT_V6",
			f->permit ? "permit" : "block", f->weight, p->user);
		if (f->loopback)
			fprintf(out, " remote=%s", f->layer == SRT__WFP_CONNECT_V4 ? "127.0.0.0/8" : "::1");
		if (f->port_lo)
			fprintf(out, " port=%d-%d", f->port_lo, f->port_hi);
		if (f->port_not)
			fprintf(out, " port!=%d", f->port_not);
		fprintf(out, "\n");
	}
}

void srt__win32_print_uninstall(const struct srt__winplan *p, FILE *out)
{
	size_t i;

	for (i = 0; i < p->n_filters; i++) {
		GUID g;

		filter_key(&g, i);
		fprintf(out, "delete wfp filter ");
		print_guid(out, &g);
		fprintf(out, "\n");
	}
	fprintf(out, "delete wfp sublayer ");
	print_guid(out, &SRT_WFP_SUBLAYER);
	fprintf(out, "\ndelete wfp provider ");
	print_guid(out, &SRT_WFP_PROVIDER);
	fprintf(out, "\ndelete group %s\ndelete account %s\n", p->group, p->user);
	fprintf(out, "delete HKLM\\SOFTWARE\\sandbox-runtime\n");
}

/* ---- install ---- */

static int random_password(wchar_t *pw, size_t n)
{
	static const wchar_t set[] = L"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
	unsigned char rnd[32];
	HCRYPTPROV prov;
	size_t i;

	if (n < 37)
		return -1;
	if (!CryptAcquireContextW(&prov, NULL, NULL, PROV_RSA_FULL, CRYPT_VERIFYCONTEXT))
		return -1;
	if (!CryptGenRandom(prov, sizeof(rnd), rnd)) {
		CryptReleaseContext(prov, 0);
		return -1;
	}
	CryptReleaseContext(prov, 0);
	for (i = 0; i < sizeof(rnd); i++)
		pw[i] = set[rnd[i] % (sizeof(set) / sizeof(set[0]) - 1)];
	wcscpy(pw + sizeof(rnd), L"a1A!"); /* every character class a policy may ask for */
	SecureZeroMemory(rnd, sizeof(rnd));
	return 0;
}

static int add_account(const struct srt__winplan *p, wchar_t *pw)
{
	wchar_t user[64], group[64];
	USER_INFO_1 ui;
	LOCALGROUP_INFO_1 gi;
	LOCALGROUP_MEMBERS_INFO_3 mi;
	NET_API_STATUS st;

	if (to_w(p->user, user, 64, 0) || to_w(p->group, group, 64, 0))
		return fail("account", ERROR_INVALID_NAME, "name the account in plain characters");
	memset(&ui, 0, sizeof(ui));
	ui.usri1_name = user;
	ui.usri1_password = pw;
	ui.usri1_priv = USER_PRIV_USER;
	ui.usri1_flags = UF_SCRIPT | UF_DONT_EXPIRE_PASSWD | UF_PASSWD_CANT_CHANGE;
	ui.usri1_comment = L"srt sandbox account";
	st = NetUserAdd(NULL, 1, (LPBYTE)&ui, NULL);
	if (st == NERR_UserExists) {
		USER_INFO_1003 pi = { pw };

		st = NetUserSetInfo(NULL, user, 1003, (LPBYTE)&pi, NULL);
	}
	if (st != NERR_Success)
		return fail("account (NetUserAdd)", st, "run windows-install from an elevated prompt");
	memset(&gi, 0, sizeof(gi));
	gi.lgrpi1_name = group;
	gi.lgrpi1_comment = L"srt sandbox accounts";
	st = NetLocalGroupAdd(NULL, 1, (LPBYTE)&gi, NULL);
	if (st != NERR_Success && st != ERROR_ALIAS_EXISTS && st != NERR_GroupExists)
		return fail("group (NetLocalGroupAdd)", st, "run windows-install from an elevated prompt");
	mi.lgrmi3_domainandname = user;
	st = NetLocalGroupAddMembers(NULL, group, 3, (LPBYTE)&mi, 1);
	if (st != NERR_Success && st != ERROR_MEMBER_IN_ALIAS)
		return fail("group membership", st, "run windows-install from an elevated prompt");
	return 0;
}

static int keep_password(const wchar_t *pw)
{
	DATA_BLOB in, out;
	HKEY key;
	LONG st;

	in.pbData = (BYTE *)pw;
	in.cbData = (DWORD)((wcslen(pw) + 1) * sizeof(wchar_t));
	if (!CryptProtectData(&in, L"srt sandbox", NULL, NULL, NULL,
			      CRYPTPROTECT_LOCAL_MACHINE | CRYPTPROTECT_UI_FORBIDDEN, &out))
		return fail("DPAPI (CryptProtectData)", GetLastError(), "check the Data Protection service");
	st = RegCreateKeyExW(HKEY_LOCAL_MACHINE, REG_KEY, 0, NULL, 0, KEY_SET_VALUE, NULL, &key, NULL);
	if (st == ERROR_SUCCESS) {
		st = RegSetValueExW(key, REG_VALUE, 0, REG_BINARY, out.pbData, out.cbData);
		RegCloseKey(key);
	}
	LocalFree(out.pbData);
	if (st != ERROR_SUCCESS)
		return fail("registry (HKLM\\SOFTWARE\\sandbox-runtime)", (DWORD)st,
			    "run windows-install from an elevated prompt");
	return 0;
}

/* The account's SID as a string (LocalFree it). */
static int user_sid(const char *name, PSID *sid_out, wchar_t **str)
{
	wchar_t user[64], domain[256];
	DWORD sl = 0, dl = 256;
	SID_NAME_USE use;
	PSID sid;

	if (to_w(name, user, 64, 0))
		return -1;
	LookupAccountNameW(NULL, user, NULL, &sl, domain, &dl, &use);
	if (!sl || !(sid = LocalAlloc(LPTR, sl)))
		return -1;
	dl = 256;
	if (!LookupAccountNameW(NULL, user, sid, &sl, domain, &dl, &use) ||
	    (str && !ConvertSidToStringSidW(sid, str))) {
		LocalFree(sid);
		return -1;
	}
	*sid_out = sid;
	return 0;
}

struct conds {
	FWPM_FILTER_CONDITION0 c[4];
	FWP_V4_ADDR_AND_MASK v4;
	FWP_BYTE_ARRAY16 v6;
	FWP_RANGE0 range;
	FWP_BYTE_BLOB sd;
};

static UINT32 fill_conds(const struct srt__wfp_filter *f, struct conds *k)
{
	UINT32 n = 0;

	memset(k->c, 0, sizeof(k->c));
	k->c[n].fieldKey = SRT_COND_USER_ID;
	k->c[n].matchType = FWP_MATCH_EQUAL;
	k->c[n].conditionValue.type = FWP_SECURITY_DESCRIPTOR_TYPE;
	k->c[n].conditionValue.sd = &k->sd;
	n++;
	if (f->loopback) {
		k->c[n].fieldKey = SRT_COND_REMOTE_ADDRESS;
		k->c[n].matchType = FWP_MATCH_EQUAL;
		if (f->layer == SRT__WFP_CONNECT_V4) {
			k->v4.addr = 0x7f000000;
			k->v4.mask = 0xff000000;
			k->c[n].conditionValue.type = FWP_V4_ADDR_MASK;
			k->c[n].conditionValue.v4AddrMask = &k->v4;
		} else {
			memset(&k->v6, 0, sizeof(k->v6));
			k->v6.byteArray16[15] = 1;
			k->c[n].conditionValue.type = FWP_BYTE_ARRAY16_TYPE;
			k->c[n].conditionValue.byteArray16 = &k->v6;
		}
		n++;
	}
	if (f->port_lo) {
		k->range.valueLow.type = FWP_UINT16;
		k->range.valueLow.uint16 = (UINT16)f->port_lo;
		k->range.valueHigh.type = FWP_UINT16;
		k->range.valueHigh.uint16 = (UINT16)f->port_hi;
		k->c[n].fieldKey = SRT_COND_REMOTE_PORT;
		k->c[n].matchType = FWP_MATCH_RANGE;
		k->c[n].conditionValue.type = FWP_RANGE_TYPE;
		k->c[n].conditionValue.rangeValue = &k->range;
		n++;
	}
	if (f->port_not) {
		k->c[n].fieldKey = SRT_COND_REMOTE_PORT;
		k->c[n].matchType = FWP_MATCH_NOT_EQUAL;
		k->c[n].conditionValue.type = FWP_UINT16;
		k->c[n].conditionValue.uint16 = (UINT16)f->port_not;
		n++;
	}
	return n;
}

static DWORD add_wfp_objects(HANDLE eng, const struct srt__winplan *p, FWP_BYTE_BLOB *sd)
{
	FWPM_PROVIDER0 prov;
	FWPM_SUBLAYER0 sub;
	GUID pk = SRT_WFP_PROVIDER;
	DWORD st;
	size_t i;

	memset(&prov, 0, sizeof(prov));
	prov.providerKey = SRT_WFP_PROVIDER;
	prov.displayData.name = L"srt";
	prov.displayData.description = L"srt sandbox network fence";
	prov.flags = FWPM_PROVIDER_FLAG_PERSISTENT;
	if ((st = FwpmProviderAdd0(eng, &prov, NULL)) && st != (DWORD)FWP_E_ALREADY_EXISTS)
		return st;
	memset(&sub, 0, sizeof(sub));
	sub.subLayerKey = SRT_WFP_SUBLAYER;
	sub.displayData.name = L"srt sandbox";
	sub.flags = FWPM_SUBLAYER_FLAG_PERSISTENT;
	sub.providerKey = &pk;
	sub.weight = 0x8000;
	if ((st = FwpmSubLayerAdd0(eng, &sub, NULL)) && st != (DWORD)FWP_E_ALREADY_EXISTS)
		return st;
	for (i = 0; i < p->n_filters; i++) {
		const struct srt__wfp_filter *f = &p->filters[i];
		FWPM_FILTER0 flt;
		struct conds k;
		wchar_t name[128];

		memset(&flt, 0, sizeof(flt));
		k.sd = *sd;
		filter_key(&flt.filterKey, i);
		to_w(f->name, name, 128, 0);
		flt.displayData.name = name;
		flt.flags = FWPM_FILTER_FLAG_PERSISTENT;
		flt.providerKey = &pk;
		flt.layerKey = f->layer == SRT__WFP_CONNECT_V4 ? SRT_LAYER_CONNECT_V4
							       : SRT_LAYER_CONNECT_V6;
		flt.subLayerKey = SRT_WFP_SUBLAYER;
		flt.weight.type = FWP_UINT8;
		flt.weight.uint8 = f->weight;
		flt.numFilterConditions = fill_conds(f, &k);
		flt.filterCondition = k.c;
		flt.action.type = f->permit ? FWP_ACTION_PERMIT : FWP_ACTION_BLOCK;
		FwpmFilterDeleteByKey0(eng, &flt.filterKey); /* a reinstall replaces it */
		if ((st = FwpmFilterAdd0(eng, &flt, NULL, NULL)))
			return st;
	}
	return 0;
}

static int add_wfp(const struct srt__winplan *p)
{
	wchar_t *sid_str, sddl[256];
	PSECURITY_DESCRIPTOR sd;
	FWP_BYTE_BLOB blob;
	HANDLE eng;
	PSID sid;
	ULONG sdlen;
	DWORD st;

	if (user_sid(p->user, &sid, &sid_str))
		return fail("account SID (LookupAccountName)", GetLastError(),
			    "the sandbox account must exist: windows-install creates it");
	_snwprintf(sddl, 256, L"O:LSD:(A;;CC;;;%ls)", sid_str);
	LocalFree(sid_str);
	LocalFree(sid);
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, &sdlen))
		return fail("WFP user condition", GetLastError(), "report this as a bug");
	blob.data = sd;
	blob.size = sdlen;
	st = FwpmEngineOpen0(NULL, RPC_C_AUTHN_WINNT, NULL, NULL, &eng);
	if (st) {
		LocalFree(sd);
		return fail("WFP (FwpmEngineOpen0)", st,
			    "start the Base Filtering Engine service (BFE) and run elevated");
	}
	if (!(st = FwpmTransactionBegin0(eng, 0))) {
		st = add_wfp_objects(eng, p, &blob);
		if (st)
			FwpmTransactionAbort0(eng);
		else
			st = FwpmTransactionCommit0(eng);
	}
	FwpmEngineClose0(eng);
	LocalFree(sd);
	if (st)
		return fail("WFP filters (FwpmFilterAdd0)", st, "run windows-install from an elevated prompt");
	return 0;
}

/* The filters' port range beside the password: the module's probe
 * (module.c) refuses a run whose windows.proxyPortRange lies outside it. */
static int keep_ports(const struct srt__winplan *p)
{
	DWORD lo = (DWORD)p->port_lo, hi = (DWORD)p->port_hi;
	HKEY key;
	LONG st;

	st = RegCreateKeyExW(HKEY_LOCAL_MACHINE, REG_KEY, 0, NULL, 0, KEY_SET_VALUE, NULL, &key, NULL);
	if (st == ERROR_SUCCESS) {
		st = RegSetValueExW(key, SRT__WIN_REG_PORT_LO, 0, REG_DWORD, (const BYTE *)&lo, sizeof(lo));
		if (st == ERROR_SUCCESS)
			st = RegSetValueExW(key, SRT__WIN_REG_PORT_HI, 0, REG_DWORD, (const BYTE *)&hi,
					    sizeof(hi));
		RegCloseKey(key);
	}
	if (st != ERROR_SUCCESS)
		return fail("registry (HKLM\\SOFTWARE\\sandbox-runtime)", (DWORD)st,
			    "run windows-install from an elevated prompt");
	return 0;
}

int srt__win32_installed_ports(int *lo, int *hi)
{
	DWORD l = 0, h = 0, n = sizeof(l);

	*lo = *hi = 0;
	if (RegGetValueW(HKEY_LOCAL_MACHINE, REG_KEY, SRT__WIN_REG_PORT_LO, RRF_RT_REG_DWORD, NULL, &l,
			 &n) != ERROR_SUCCESS)
		return -1;
	n = sizeof(h);
	if (RegGetValueW(HKEY_LOCAL_MACHINE, REG_KEY, SRT__WIN_REG_PORT_HI, RRF_RT_REG_DWORD, NULL, &h,
			 &n) != ERROR_SUCCESS || l < 1 || h > 65535 || l > h)
		return -1;
	*lo = (int)l;
	*hi = (int)h;
	return 0;
}

int srt__win32_install(const struct srt__winplan *p)
{
	wchar_t pw[64];
	int rc;

	if (random_password(pw, 64))
		return fail("password (CryptGenRandom)", GetLastError(), "check the cryptographic service");
	rc = add_account(p, pw);
	if (!rc)
		rc = keep_password(pw);
	if (!rc)
		rc = keep_ports(p);
	SecureZeroMemory(pw, sizeof(pw));
	if (!rc)
		rc = add_wfp(p);
	if (!rc)
		printf("srt-win: installed account %s, group %s and %zu WFP filters\n", p->user,
		       p->group, p->n_filters);
	return rc;
}

/* ---- uninstall ---- */

int srt__win32_uninstall(const struct srt__winplan *p)
{
	wchar_t user[64], group[64];
	HANDLE eng;
	DWORD st;
	size_t i;
	int rc = 0;

	st = FwpmEngineOpen0(NULL, RPC_C_AUTHN_WINNT, NULL, NULL, &eng);
	if (st) {
		rc = fail("WFP (FwpmEngineOpen0)", st, "start the BFE service and run elevated");
	} else {
		GUID sl = SRT_WFP_SUBLAYER, pk = SRT_WFP_PROVIDER;

		for (i = 0; i < 8; i++) {
			GUID g;

			filter_key(&g, i);
			st = FwpmFilterDeleteByKey0(eng, &g);
			if (st && st != (DWORD)FWP_E_FILTER_NOT_FOUND)
				rc = fail("WFP filter delete", st, "run elevated");
		}
		st = FwpmSubLayerDeleteByKey0(eng, &sl);
		if (st && st != (DWORD)FWP_E_SUBLAYER_NOT_FOUND)
			rc = fail("WFP sublayer delete", st, "run elevated");
		st = FwpmProviderDeleteByKey0(eng, &pk);
		if (st && st != (DWORD)FWP_E_PROVIDER_NOT_FOUND)
			rc = fail("WFP provider delete", st, "run elevated");
		FwpmEngineClose0(eng);
	}
	if (to_w(p->user, user, 64, 0) || to_w(p->group, group, 64, 0))
		return 1;
	st = NetLocalGroupDel(NULL, group);
	if (st != NERR_Success && st != NERR_GroupNotFound && st != ERROR_NO_SUCH_ALIAS)
		rc = fail("group delete", st, "run elevated");
	st = NetUserDel(NULL, user);
	if (st != NERR_Success && st != NERR_UserNotFound)
		rc = fail("account delete", st, "run elevated");
	st = (DWORD)RegDeleteKeyW(HKEY_LOCAL_MACHINE, REG_KEY);
	if (st != ERROR_SUCCESS && st != ERROR_FILE_NOT_FOUND)
		rc = fail("registry delete", st, "run elevated");
	return rc;
}

/* ---- run ---- */

static int read_password(wchar_t *pw, size_t n)
{
	BYTE buf[1024];
	DWORD len = sizeof(buf);
	DATA_BLOB in, out;
	LONG st;

	st = RegGetValueW(HKEY_LOCAL_MACHINE, REG_KEY, REG_VALUE, RRF_RT_REG_BINARY, NULL, buf, &len);
	if (st != ERROR_SUCCESS)
		return fail("sandbox password (registry)", (DWORD)st,
			    "run srt windows-install once, elevated");
	in.pbData = buf;
	in.cbData = len;
	if (!CryptUnprotectData(&in, NULL, NULL, NULL, NULL, CRYPTPROTECT_UI_FORBIDDEN, &out))
		return fail("sandbox password (CryptUnprotectData)", GetLastError(),
			    "run srt windows-install again, elevated");
	if (out.cbData > n * sizeof(wchar_t) || out.cbData < sizeof(wchar_t)) {
		LocalFree(out.pbData);
		return fail("sandbox password", ERROR_INVALID_DATA, "run srt windows-install again");
	}
	memcpy(pw, out.pbData, out.cbData);
	pw[out.cbData / sizeof(wchar_t) - 1] = 0;
	SecureZeroMemory(out.pbData, out.cbData);
	LocalFree(out.pbData);
	return 0;
}

static int set_ace(const struct srt__win_ace *a, PSID sid, int add)
{
	wchar_t path[PATHW];
	PACL old = NULL, acl = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	DWORD st;

	if (to_w(a->path, path, PATHW, 1))
		return fail("filesystem entry", ERROR_INVALID_NAME, a->path);
	st = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
				   &old, NULL, &sd);
	if (st)
		return fail("filesystem entry (GetNamedSecurityInfo)", st, a->path);
	if (add) {
		EXPLICIT_ACCESS_W ea;

		memset(&ea, 0, sizeof(ea));
		ea.grfAccessPermissions = a->mask;
		ea.grfAccessMode = a->type == SRT__W_ALLOW ? GRANT_ACCESS : DENY_ACCESS;
		ea.grfInheritance = a->inherit;
		ea.Trustee.TrusteeForm = TRUSTEE_IS_SID;
		ea.Trustee.TrusteeType = TRUSTEE_IS_USER;
		ea.Trustee.ptstrName = (LPWSTR)sid;
		st = SetEntriesInAclW(1, &ea, old, &acl);
	} else {
		/* remove only the entry the plan added: same SID, type and mask */
		DWORD i;
		BYTE want = a->type == SRT__W_ALLOW ? ACCESS_ALLOWED_ACE_TYPE : ACCESS_DENIED_ACE_TYPE;

		for (i = 0; old && i < old->AceCount; i++) {
			ACCESS_ALLOWED_ACE *e;

			if (!GetAce(old, i, (LPVOID *)&e) || e->Header.AceType != want ||
			    (e->Header.AceFlags & INHERITED_ACE) || e->Mask != a->mask ||
			    !EqualSid((PSID)&e->SidStart, sid))
				continue;
			DeleteAce(old, i);
			break;
		}
		acl = old;
		st = 0;
	}
	if (!st)
		st = SetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
					   NULL, acl, NULL);
	if (acl && acl != old)
		LocalFree(acl);
	LocalFree(sd);
	if (st)
		return fail(add ? "filesystem entry (SetNamedSecurityInfo)"
				: "filesystem entry removal", st, a->path);
	return 0;
}

static void remove_aces(const struct srt__winplan *p, PSID sid, size_t n)
{
	while (n-- > 0)
		if (!p->aces[n].keep)
			set_ace(&p->aces[n], sid, 0);
}

/* argv as one command line, quoted as the C runtime parses it: each
 * argument in quotes, a quote escaped, backslashes doubled before a quote. */
wchar_t *srt__win32_command_line(char *const *argv)
{
	size_t cap = 2, i, n;
	char *u, *o;
	wchar_t *w;

	for (i = 0; argv[i]; i++)
		cap += strlen(argv[i]) * 2 + 3;
	if (!(u = o = calloc(cap, 1)))
		return NULL;
	for (i = 0; argv[i]; i++) {
		const char *s = argv[i];
		size_t bs = 0;

		if (i)
			*o++ = ' ';
		*o++ = '"';
		for (; *s; s++) {
			if (*s == '"') {
				for (n = 0; n < bs + 1; n++)
					*o++ = '\\';
			}
			bs = *s == '\\' ? bs + 1 : 0;
			*o++ = *s;
		}
		for (n = 0; n < bs; n++)
			*o++ = '\\';
		*o++ = '"';
	}
	n = (size_t)MultiByteToWideChar(CP_UTF8, 0, u, -1, NULL, 0);
	w = n ? calloc(n, sizeof(wchar_t)) : NULL;
	if (w)
		MultiByteToWideChar(CP_UTF8, 0, u, -1, w, (int)n);
	free(u);
	return w;
}

static int launch(const struct srt__winplan *p, PSID sid, char **argv, DWORD *code)
{
	wchar_t pw[64], user[64], *cmd;
	HANDLE tok = NULL, rtok = NULL, job;
	SID_AND_ATTRIBUTES restrict_sid = { sid, 0 };
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	void *env = NULL;
	int rc;

	if ((rc = read_password(pw, 64)))
		return rc;
	to_w(p->user, user, 64, 0);
	rc = !LogonUserW(user, L".", pw, LOGON32_LOGON_INTERACTIVE, LOGON32_PROVIDER_DEFAULT, &tok);
	SecureZeroMemory(pw, sizeof(pw));
	if (rc)
		return fail("logon (LogonUser)", GetLastError(),
			    "run srt windows-install again (the password may have been changed)");
	if (!CreateRestrictedToken(tok, WRITE_RESTRICTED, 0, NULL, 0, NULL, 1, &restrict_sid, &rtok)) {
		CloseHandle(tok);
		return fail("restricted token (CreateRestrictedToken)", GetLastError(), "report this as a bug");
	}
	CloseHandle(tok);
	job = CreateJobObjectW(NULL, NULL);
	memset(&lim, 0, sizeof(lim));
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (!job || !SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim, sizeof(lim))) {
		CloseHandle(rtok);
		return fail("job object", GetLastError(), "report this as a bug");
	}
	if (!(cmd = srt__win32_command_line(argv))) {
		CloseHandle(rtok);
		CloseHandle(job);
		return fail("command line", ERROR_OUTOFMEMORY, "free memory");
	}
	CreateEnvironmentBlock(&env, rtok, FALSE);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	rc = !CreateProcessWithTokenW(rtok, LOGON_WITH_PROFILE, NULL, cmd,
				      CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT, env, NULL, &si, &pi);
	free(cmd);
	if (env)
		DestroyEnvironmentBlock(env);
	CloseHandle(rtok);
	if (rc) {
		CloseHandle(job);
		return fail("process (CreateProcessWithToken)", GetLastError(),
			    "run srt as an administrator (it needs SeImpersonatePrivilege)");
	}
	if (!AssignProcessToJobObject(job, pi.hProcess)) {
		TerminateProcess(pi.hProcess, 1);
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
		CloseHandle(job);
		return fail("job object (AssignProcessToJobObject)", GetLastError(), "report this as a bug");
	}
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, code);
	CloseHandle(pi.hProcess);
	CloseHandle(job); /* kills whatever the command left behind */
	return 0;
}

int srt__win32_run(const struct srt__winplan *p, char **argv)
{
	PSID sid;
	DWORD code = 1;
	size_t i;
	int rc = 0;

	if (user_sid(p->user, &sid, NULL))
		return fail("account SID (LookupAccountName)", GetLastError(),
			    "run srt windows-install once, elevated");
	for (i = 0; i < p->n_aces && !rc; i++)
		rc = set_ace(&p->aces[i], sid, 1);
	if (!rc)
		rc = launch(p, sid, argv, &code);
	remove_aces(p, sid, i);
	LocalFree(sid);
	return rc ? rc : (int)code;
}
