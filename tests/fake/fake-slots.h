/* The mandatory slots every fake backend module fills: they do nothing
 * (wrap() refuses). Included by each fake module after the srt/backend.h
 * it is built against; these slots are the same at every ABI 1.x. */
#ifndef SRT_FAKE_SLOTS_H
#define SRT_FAKE_SLOTS_H

static int f_probe(const struct srt_policy *p, struct srt_diag *d) { (void)p; (void)d; return 0; }
static int f_prepare(const struct srt_policy *p, void **s, struct srt_diag *d) { (void)p; (void)d; *s = 0; return 0; }
static int f_wrap(void *s, const char *const *a, struct srt_command *o, struct srt_diag *d)
{ (void)s; (void)a; (void)o; (void)d; return SRT_E_UNSUPPORTED; }
static void f_release(void *s, struct srt_command *c) { (void)s; (void)c; }
static void f_teardown(void *s) { (void)s; }

#endif
