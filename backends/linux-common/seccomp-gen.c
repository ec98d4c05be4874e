/* seccomp-gen: run at build time, writes seccomp-tables.c on stdout: the
 * BPF program libseccomp builds for every combination of the flags of
 * each filter the helpers load (seccomp.h, "filters built when srt was
 * built": linux-bwrap's and linux-landlock's enforcement filter, the read
 * observer's, linux-landlock's write supervisor's and its own filter for
 * what Landlock cannot see), as C arrays the helpers load without running
 * libseccomp at every start.
 *
 * A combination libseccomp cannot build here (a kernel without seccomp on
 * the build machine: libseccomp asks it about the kill-process action) is
 * left out and named on stderr: the helper then builds that filter at run
 * time, as it did before the tables, and fails there as it would have. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/filter.h>

#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/netfilter.h"

static const struct {
	int kind;
	const char *sym, *name, *what;
	unsigned first, end; /* the combinations: bits first .. end-1 */
} kinds[] = {
#define KIND(k) k, #k
	{ KIND(SRT_SECCOMP_KIND_ENFORCE), "enforce", "enforcement", 0, SRT_SECCOMP_ENFORCE_COMBINATIONS },
	{ KIND(SRT_SECCOMP_KIND_OBSERVE), "observe", "observe", 1, SRT_SECCOMP_OBSERVE_COMBINATIONS },
	{ KIND(SRT_SECCOMP_KIND_SUPERVISOR), "supervisor", "write supervisor", 0,
	  SRT_SECCOMP_SUPERVISOR_COMBINATIONS },
	{ KIND(SRT_SECCOMP_KIND_LL_NET), "llnet", "linux-landlock network", 0, SRT_SECCOMP_LL_NET_COMBINATIONS },
#undef KIND
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

struct made {
	size_t kind; /* index in kinds[] */
	unsigned bits;
	uint32_t n;
};

static int emit(size_t kind, unsigned bits, struct made *m)
{
	struct sock_filter *prog;
	char step[160] = "";
	uint32_t n, i;
	int rc = kinds[kind].kind == SRT_SECCOMP_KIND_LL_NET ?
			 srt__ll_seccomp_build_program(bits, &prog, &n, step, sizeof(step)) :
			 srt__seccomp_build_program(kinds[kind].kind, bits, &prog, &n, step, sizeof(step));

	if (rc < 0) {
		fprintf(stderr,
			"seccomp-gen: %s filter, flags %#x: %s failed (%d); the helper will build it at run time\n",
			kinds[kind].what, bits, step[0] ? step : "libseccomp", rc);
		return 0;
	}
	if (n == 0 || n > 0xffff) {
		fprintf(stderr, "seccomp-gen: %s filter, flags %#x: a program of %u instructions\n",
			kinds[kind].what, bits, (unsigned)n);
		free(prog);
		return -1;
	}
	printf("static const struct sock_filter %s_%u[%u] = {\n", kinds[kind].name, bits, (unsigned)n);
	for (i = 0; i < n; i++)
		printf("\t{ 0x%04x, %u, %u, 0x%08x },\n", prog[i].code, prog[i].jt, prog[i].jf,
		       (unsigned)prog[i].k);
	printf("};\n\n");
	free(prog);
	m->kind = kind;
	m->bits = bits;
	m->n = n;
	return 1;
}

int main(void)
{
	struct made made[SRT_SECCOMP_ENFORCE_COMBINATIONS + SRT_SECCOMP_OBSERVE_COMBINATIONS +
			 SRT_SECCOMP_SUPERVISOR_COMBINATIONS + SRT_SECCOMP_LL_NET_COMBINATIONS];
	size_t k = 0, i, c;
	unsigned bits;
	int rc;

	printf("/* Written by seccomp-gen when srt was built (backends/linux-common/seccomp-gen.c):\n"
	       " * libseccomp's programs for every flag combination. Do not edit. */\n"
	       "#include \"config.h\"\n\n"
	       "#include <stddef.h>\n"
	       "#include <linux/filter.h>\n\n"
	       "#include \"backends/linux-common/seccomp.h\"\n\n");
	for (c = 0; c < N_KINDS; c++)
		for (bits = kinds[c].first; bits < kinds[c].end; bits++) {
			rc = emit(c, bits, &made[k]);
			if (rc < 0)
				return 1;
			k += (size_t)rc;
		}
	printf("extern const struct srt__seccomp_program srt__seccomp_programs[];\n"
	       "extern const size_t srt__n_seccomp_programs;\n\n"
	       "const struct srt__seccomp_program srt__seccomp_programs[] = {\n");
	for (i = 0; i < k; i++)
		printf("\t{ %s, %u, %u, %s_%u },\n", kinds[made[i].kind].sym, made[i].bits,
		       (unsigned)made[i].n, kinds[made[i].kind].name, made[i].bits);
	/* an empty initializer list is not C11 */
	if (!k)
		printf("\t{ 0, 0, 0, NULL },\n");
	printf("};\nconst size_t srt__n_seccomp_programs = %u;\n", (unsigned)k);
	return fflush(stdout) == 0 ? 0 : 1;
}
