/* SPDX-License-Identifier: BSD-3-Clause */
/* ranksets — drawing by a partial Fisher–Yates shuffle, so the 2C ranks are distinct and
 * every subset is equally likely. */
#include "ranksets.h"

#include <stdlib.h>

int ranksets_draw(struct ranksets *rs, struct rng *r, int nranks, int c)
{
	rs->set[0] = rs->set[1] = NULL;
	if (nranks < 1 || c < 1)
		return -1;
	if (nranks == 1) {
		rs->nsets = 1;
		rs->size = 1;
	} else {
		rs->nsets = 2;
		rs->size = nranks >= 2 * c ? c : nranks / 2;
	}

	int need = rs->nsets * rs->size;
	int *perm = malloc((size_t)nranks * sizeof(int));

	if (!perm)
		return -1;
	for (int i = 0; i < nranks; i++)
		perm[i] = i;
	for (int i = 0; i < need; i++) {
		int j = i + (int)rng_below(r, (uint64_t)(nranks - i));
		int tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (int k = 0; k < rs->nsets; k++) {
		rs->set[k] = malloc((size_t)rs->size * sizeof(int));
		if (!rs->set[k]) {
			free(perm);
			ranksets_free(rs);
			return -1;
		}
		for (int i = 0; i < rs->size; i++)
			rs->set[k][i] = perm[k * rs->size + i];
	}
	free(perm);
	return 0;
}

void ranksets_free(struct ranksets *rs)
{
	free(rs->set[0]);
	free(rs->set[1]);
	rs->set[0] = rs->set[1] = NULL;
}

int ranksets_active(const struct ranksets *rs, long sample_no)
{
	if (rs->nsets < 2)
		return 0;
	return (int)((sample_no / RANKSETS_SWITCH_EVERY) % 2);
}
