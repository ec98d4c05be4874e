/* seccomp-gen: run at build time, writes seccomp-tables.c on stdout: the
 * BPF program libseccomp builds for every combination of the enforcement
 * filter's flags and of the observe filter's flags (seccomp.h, "filters
 * built when srt was built"), as C arrays the helpers load without running
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

struct made {
	int kind;
	unsigned bits;
	uint32_t n;
};

static int emit(int kind, unsigned bits, struct made *m)
{
	struct sock_filter *prog;
	char step[160] = "";
	uint32_t n, i;
	int rc = srt__seccomp_build_program(kind, bits, &prog, &n, step, sizeof(step));

	if (rc < 0) {
		fprintf(stderr,
			"seccomp-gen: %s filter, flags %#x: %s failed (%d); the helper will build it at run time\n",
			kind == SRT_SECCOMP_KIND_ENFORCE ? "enforcement" : "observe", bits,
			step[0] ? step : "libseccomp", rc);
		return 0;
	}
	if (n == 0 || n > 0xffff) {
		fprintf(stderr, "seccomp-gen: flags %#x: a program of %u instructions\n", bits, (unsigned)n);
		free(prog);
		return -1;
	}
	printf("static const struct sock_filter %s_%u[%u] = {\n",
	       kind == SRT_SECCOMP_KIND_ENFORCE ? "enforce" : "observe", bits, (unsigned)n);
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
	struct made made[SRT_SECCOMP_ENFORCE_COMBINATIONS + SRT_SECCOMP_OBSERVE_COMBINATIONS];
	size_t k = 0, i;
	unsigned bits;
	int rc;

	printf("/* Written by seccomp-gen when srt was built (backends/linux-common/seccomp-gen.c):\n"
	       " * libseccomp's programs for every flag combination. Do not edit. */\n"
	       "#include \"config.h\"\n\n"
	       "#include <stddef.h>\n"
	       "#include <linux/filter.h>\n\n"
	       "#include \"backends/linux-common/seccomp.h\"\n\n");
	for (bits = 0; bits < SRT_SECCOMP_ENFORCE_COMBINATIONS; bits++) {
		rc = emit(SRT_SECCOMP_KIND_ENFORCE, bits, &made[k]);
		if (rc < 0)
			return 1;
		k += (size_t)rc;
	}
	for (bits = 1; bits < SRT_SECCOMP_OBSERVE_COMBINATIONS; bits++) {
		rc = emit(SRT_SECCOMP_KIND_OBSERVE, bits, &made[k]);
		if (rc < 0)
			return 1;
		k += (size_t)rc;
	}
	printf("extern const struct srt__seccomp_program srt__seccomp_programs[];\n"
	       "extern const size_t srt__n_seccomp_programs;\n\n"
	       "const struct srt__seccomp_program srt__seccomp_programs[] = {\n");
	for (i = 0; i < k; i++) {
		const char *name = made[i].kind == SRT_SECCOMP_KIND_ENFORCE ? "enforce" : "observe";

		printf("\t{ %s, %u, %u, %s_%u },\n",
		       made[i].kind == SRT_SECCOMP_KIND_ENFORCE ? "SRT_SECCOMP_KIND_ENFORCE" : "SRT_SECCOMP_KIND_OBSERVE",
		       made[i].bits, (unsigned)made[i].n, name, made[i].bits);
	}
	/* an empty initializer list is not C11 */
	if (!k)
		printf("\t{ 0, 0, 0, NULL },\n");
	printf("};\nconst size_t srt__n_seccomp_programs = %u;\n", (unsigned)k);
	return fflush(stdout) == 0 ? 0 : 1;
}
