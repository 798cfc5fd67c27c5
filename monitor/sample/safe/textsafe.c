/* SPDX-License-Identifier: BSD-3-Clause */
/* textsafe — bounded, escaped copies of a target's text (see textsafe.h). */
#include "textsafe.h"

#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (avail bytes there) that is no control character
 * (C1 included), or 0. */
static int utf8_printable(const unsigned char *s, size_t avail)
{
	unsigned char b = s[0];
	int n = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;

	if ((size_t)n > avail)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((b == 0xe0 && s[1] < 0xa0) || (b == 0xed && s[1] > 0x9f) || (b == 0xf0 && s[1] < 0x90) ||
	    (b == 0xf4 && s[1] > 0x8f) || (b == 0xc2 && s[1] < 0xa0))
		return 0;
	return n;
}

void text_escape(char *dst, size_t len, const char *src, size_t srclen)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	size_t o = 0, avail = src ? strnlen(src, srclen) : 0;

	while (avail && o + 5 < len) {
		int n = *s >= 0x80 ? utf8_printable(s, avail) : *s >= 0x20 && *s != 0x7f;

		if (n == 0) {
			o += (size_t)snprintf(dst + o, len - o, "\\x%02x", *s++);
			avail--;
			continue;
		}
		memcpy(dst + o, s, (size_t)n);
		o += (size_t)n;
		s += n;
		avail -= (size_t)n;
	}
	dst[o] = '\0';
}
