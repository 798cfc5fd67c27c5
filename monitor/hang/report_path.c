/* SPDX-License-Identifier: BSD-3-Clause */
/* report_path — shortened paths for people (report_path.h). Bounded by the fixed buffers: a
 * path of any length from any rank is read once, cut where it does not fit. */
#include "report_path.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_PATH_FRAMES 128
#define SEP " > "
#define ELLIPSIS "\xe2\x80\xa6" /* … */

/* Does the '<' at s[i] open template arguments (after a name: "vector<"), not Python's
 * "<module>" or an operator ("operator<<", "operator<=")? */
static bool opens_template(const char *s, size_t i)
{
	if (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))
		return false;
	if (i >= 8 && !strncmp(s + i - 8, "operator", 8))
		return false;
	return s[i + 1] != '<' && s[i + 1] != '=' && s[i + 1] != '\0';
}

/* The index just past the '>' closing the '<' at s[i], or 0 when it is not closed. */
static size_t template_end(const char *s, size_t i)
{
	int depth = 0;

	for (size_t j = i; s[j]; j++) {
		if (s[j] == '<')
			depth++;
		else if (s[j] == '>' && --depth == 0)
			return j + 1;
	}
	return 0;
}

void report_frame_short(const char *frame, char *out, size_t len)
{
	size_t o = 0, end;

	for (size_t i = 0; frame[i] && o + 1 < len; i++) {
		if (frame[i] == '<' && opens_template(frame, i) && o + 6 < len) {
			end = template_end(frame, i);
			o += (size_t)snprintf(out + o, len - o, "<" ELLIPSIS ">");
			if (!end) /* cut before it closed (a name kept to a buffer's size) */
				break;
			i = end - 1;
			continue;
		}
		out[o++] = frame[i];
	}
	out[o < len ? o : len - 1] = '\0';
}

/* How much a frame is worth keeping: the call (the last) and the program's own line (keep)
 * most, Python frames next, native ones least. */
static int frame_worth(const char *f, bool last, const char *keep)
{
	if (last || (keep && !strcmp(f, keep)))
		return 3;
	return strstr(f, ".py:") ? 2 : 1;
}

/* The length of the frames kept joined, each dropped run one "…". */
static size_t joined_len(char frames[][300], const bool *kept, int n)
{
	size_t total = 0;

	for (int i = 0; i < n; i++)
		if (kept[i] || i == 0 || kept[i - 1])
			total += (i ? strlen(SEP) : 0) + (kept[i] ? strlen(frames[i]) : strlen(ELLIPSIS));
	return total;
}

void report_path_short(const char *path, const char *keep, size_t max, char *out, size_t len)
{
	static __thread char frames[MAX_PATH_FRAMES][300];
	bool kept[MAX_PATH_FRAMES];
	int n = 0;

	for (const char *p = path; p && *p && n < MAX_PATH_FRAMES; n++) {
		const char *next = strstr(p, SEP);
		size_t flen = next ? (size_t)(next - p) : strlen(p);
		char whole[2048];

		snprintf(whole, sizeof(whole), "%.*s", (int)(flen < sizeof(whole) ? flen : sizeof(whole) - 1), p);
		report_frame_short(whole, frames[n], sizeof(frames[n]));
		kept[n] = true;
		p = next ? next + strlen(SEP) : NULL;
	}
	/* Drop the least worth first, from the outside in. */
	for (int w = 1; w <= 2; w++)
		for (int i = 0; i < n && joined_len(frames, kept, n) > max; i++)
			if (kept[i] && frame_worth(frames[i], i == n - 1, keep) == w)
				kept[i] = false;

	size_t o = 0;

	out[0] = '\0';
	for (int i = 0; i < n && o + 1 < len; i++) {
		if (!kept[i] && i > 0 && !kept[i - 1])
			continue;
		o += (size_t)snprintf(out + o, len - o, "%s%s", i ? SEP : "", kept[i] ? frames[i] : ELLIPSIS);
	}
	if (o >= len)
		out[len - 1] = '\0';
}
