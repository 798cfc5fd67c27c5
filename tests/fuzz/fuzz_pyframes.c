/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_pyframes — libFuzzer target for the Python frame walker (monitor/sample/stop/pyframes.c): the
 * input is a CPython rank's memory as a hostile or corrupt one may hold it, mapped at a fixed
 * address, with _PyRuntime at its start, read with the layout of every CPython parastack knows
 * (the input's second byte picks it). Chains that loop, pointers anywhere, huge lengths and
 * garbage line tables of each format must give frames or a refusal, bounded, never a crash or a
 * read past the image. */
#include <stdint.h>
#include <string.h>

#include "../../monitor/sample/stop/pyframes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE 0x10000ULL

struct image {
	const uint8_t *data;
	size_t size;
};

static bool read_image(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct image *im = ctx;

	if (addr < BASE || addr - BASE > im->size || len > im->size - (addr - BASE))
		return false;
	memcpy(buf, im->data + (addr - BASE), len);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image im = { data, size };
	struct pyframe_raw f[PY_MAX_FRAMES];
	int minor = PY_MINOR_FIRST + (size > 1 ? data[1] : 3) % (PY_MINOR_LAST - PY_MINOR_FIRST + 1);
	const struct py_layout *L = pyframes_layout(minor);
	pid_t tid = size ? data[0] : 0;
	uint64_t pthread = size > 2 ? BASE + data[2] : 0;
	int n = pyframes_walk(L, BASE, tid, pthread, read_image, &im, f, PY_MAX_FRAMES);

	if (n < 0 || n > PY_MAX_FRAMES)
		__builtin_trap();
	for (int i = 0; i < n; i++) {
		char file[512], func[256];
		int line;

		if (pyframes_describe(L, read_image, &im, &f[i], file, sizeof(file), func, sizeof(func), &line) &&
		    (strlen(file) >= sizeof(file) || strlen(func) >= sizeof(func)))
			__builtin_trap();
	}
	pyframes_line(data, size, size > 1 ? data[1] : 1, size > 2 ? data[2] : 0);
	pyframes_line_lnotab(data, size, size > 1 ? data[1] : 1, size > 2 ? data[2] : 0);
	pyframes_line_310(data, size, size > 1 ? data[1] : 1, size > 2 ? data[2] : 0);
	return 0;
}
