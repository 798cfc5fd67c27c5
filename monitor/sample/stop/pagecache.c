/* SPDX-License-Identifier: BSD-3-Clause */
/* pagecache — file pages held once per monitor (pagecache.h). The monitor unwinds one thread at
 * a time, in one thread; the cache is that thread's. */
#include "pagecache.h"

#include <stdlib.h>
#include <string.h>

#define SETS (PAGECACHE_PAGES / PAGECACHE_WAYS)

struct slot {
	struct pagecache_key key;
	uint64_t used; /* 0: empty; else when last used (a counter) */
	unsigned char *data;
};

static __thread struct {
	struct slot slot[PAGECACHE_PAGES];
	uint64_t clock;
	struct pagecache_stats st;
} cache;

static bool key_eq(const struct pagecache_key *a, const struct pagecache_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->off == b->off;
}

static unsigned set_of(const struct pagecache_key *k)
{
	uint64_t h = k->dev * 0x9e3779b97f4a7c15ULL ^ k->ino * 0xc2b2ae3d27d4eb4fULL ^ (k->off / PAGECACHE_PAGE);

	h ^= h >> 29;
	return (unsigned)(h % SETS);
}

const unsigned char *pagecache_get(const struct pagecache_key *key, pagecache_fill fill, void *ctx)
{
	struct slot *set = &cache.slot[set_of(key) * PAGECACHE_WAYS], *victim = &set[0];

	for (int w = 0; w < PAGECACHE_WAYS; w++) {
		if (set[w].used && key_eq(&set[w].key, key)) {
			set[w].used = ++cache.clock;
			cache.st.hits++;
			return set[w].data;
		}
		if (set[w].used < victim->used)
			victim = &set[w];
	}
	cache.st.misses++;
	if (!victim->data && !(victim->data = malloc(PAGECACHE_PAGE)))
		return NULL;
	if (victim->used)
		cache.st.evictions++;
	else
		cache.st.pages++;
	victim->used = 0; /* empty until the fill succeeds */
	if (!fill(ctx, victim->data)) {
		cache.st.pages--;
		return NULL;
	}
	victim->key = *key;
	victim->used = ++cache.clock;
	return victim->data;
}

void pagecache_stats(struct pagecache_stats *st)
{
	*st = cache.st;
}

void pagecache_clear(void)
{
	for (int i = 0; i < PAGECACHE_PAGES; i++) {
		free(cache.slot[i].data);
		cache.slot[i] = (struct slot){ 0 };
	}
	cache.clock = 0;
	cache.st = (struct pagecache_stats){ 0 };
}
