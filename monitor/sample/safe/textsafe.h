/* SPDX-License-Identifier: BSD-3-Clause */
/* textsafe — text from a watched process (its debug information, its recording layer's record)
 * made safe for the user's terminal and the JSON report: whatever bytes a hostile or corrupt
 * target holds, the copy is bounded, NUL-terminated, valid UTF-8 and free of control
 * characters (those bytes are written as \xNN). */
#ifndef PARASTACK_TEXTSAFE_H
#define PARASTACK_TEXTSAFE_H

#include <stddef.h>

/* At most srclen bytes of src (up to its first NUL) into dst, of len bytes (len >= 1). */
void text_escape(char *dst, size_t len, const char *src, size_t srclen);

#endif
