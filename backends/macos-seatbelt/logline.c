/* macos-seatbelt: reading the violation monitor's log lines (logline.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "backends/macos-seatbelt/logline.h"

#define KEY_MAX 100

static const char *const noise[] = {
	"mDNSResponder",
	"mach-lookup com.apple.diagnosticd",
	"mach-lookup com.apple.analyticsd",
};

/* Copy at most n bytes of s into out, control bytes as '?'. */
static size_t put_clean(char *out, size_t room, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < room; i++)
		out[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	return i;
}

int srt__sb_log_line(const char *line, char *out, size_t outlen)
{
	const char *d, *deny, *op, *op_end, *target;
	size_t i, o;

	if (!outlen)
		return 0;
	d = strstr(line, "Sandbox:");
	if (!d)
		return 0;
	d += strlen("Sandbox:");
	while (*d == ' ' || *d == '\t')
		d++;
	for (i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		if (strstr(d, noise[i]))
			return 0;
	/* "<process>(<pid>) deny(<n>) <operation> <target>": the first
	 * "deny" word after the process; a process may be named "deny" */
	deny = strstr(d, ") deny");
	if (!deny)
		return 0;
	deny += 2;
	op = deny + 4;
	if (*op == '(') {
		op = strchr(op, ')');
		if (!op)
			return 0;
		op++;
	}
	if (*op != ' ')
		return 0;
	while (*op == ' ')
		op++;
	op_end = op + strcspn(op, " ");
	if (op_end == op)
		return 0;
	target = op_end;
	while (*target == ' ')
		target++;
	o = put_clean(out, outlen, "deny ", 5);
	o += put_clean(out + o, outlen - o, op, (size_t)(op_end - op));
	if (*target && o + 1 < outlen) {
		out[o++] = ' ';
		o += put_clean(out + o, outlen - o, target, strlen(target));
	}
	out[o] = '\0';
	return 1;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void srt__sb_log_tag(const char *key, const char *suffix, char *out, size_t outlen)
{
	const unsigned char *k = (const unsigned char *)key;
	size_t n = strnlen(key, KEY_MAX), i;
	char enc[4 * ((KEY_MAX + 2) / 3) + 1];
	size_t e = 0;

	for (i = 0; i + 2 < n; i += 3) {
		enc[e++] = b64[k[i] >> 2];
		enc[e++] = b64[((k[i] & 3) << 4) | (k[i + 1] >> 4)];
		enc[e++] = b64[((k[i + 1] & 15) << 2) | (k[i + 2] >> 6)];
		enc[e++] = b64[k[i + 2] & 63];
	}
	if (n - i == 1) {
		enc[e++] = b64[k[i] >> 2];
		enc[e++] = b64[(k[i] & 3) << 4];
		enc[e++] = '=';
		enc[e++] = '=';
	} else if (n - i == 2) {
		enc[e++] = b64[k[i] >> 2];
		enc[e++] = b64[((k[i] & 3) << 4) | (k[i + 1] >> 4)];
		enc[e++] = b64[(k[i + 1] & 15) << 2];
		enc[e++] = '=';
	}
	enc[e] = '\0';
	snprintf(out, outlen, "CMD64_%s_END_%s", enc, suffix);
}
