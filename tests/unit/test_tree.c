/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the monitors' tree (monitor/job/tree.c): from the leader, asking children level by
 * level reaches every monitor exactly once, whatever the leader, the size and the fan-out; a
 * monitor left out hands its children to its parent; what a missing answer leaves out is that
 * monitor's subtree. */
#include <stdlib.h>
#include <string.h>

#include "../../monitor/job/tree.h"
#include "suites.h"

/* Breadth first from the root through tree_children: how often each monitor is asked, and
 * the number of levels. */
static int walk(const struct tree *t, int *asked)
{
	int *queue = malloc(sizeof(int) * (size_t)t->size * 2), head = 0, n = 0, levels = 0;
	int *level = calloc((size_t)t->size, sizeof(int));

	memset(asked, 0, sizeof(int) * (size_t)t->size);
	queue[n++] = t->root;
	asked[t->root]++;
	while (head < n) {
		int mon = queue[head++], kids[TREE_FANOUT_MAX * 8];
		int k = tree_children(t, mon, kids, TREE_FANOUT_MAX * 8);

		for (int i = 0; i < k; i++) {
			asked[kids[i]]++;
			level[kids[i]] = level[mon] + 1;
			levels = level[kids[i]] > levels ? level[kids[i]] : levels;
			if (asked[kids[i]] == 1)
				queue[n++] = kids[i];
		}
	}
	free(level);
	free(queue);
	return levels;
}

START_TEST(every_monitor_is_asked_once)
{
	int sizes[] = { 1, 2, 3, 17, 64, 1000 }, fanouts[] = { 2, 3, 32 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t f = 0; f < sizeof(fanouts) / sizeof(fanouts[0]); f++)
			for (int root = 0; root < sizes[s]; root += sizes[s] / 3 + 1) {
				struct tree t = { sizes[s], root, fanouts[f], NULL };
				int *asked = calloc((size_t)sizes[s], sizeof(int));
				int levels = walk(&t, asked);

				for (int m = 0; m < sizes[s]; m++)
					ck_assert_int_eq(asked[m], 1);
				ck_assert_int_eq(levels, tree_depth(&t));
				free(asked);
			}
	/* 64 monitors under fan-out 2: six levels; under 32: two. */
	ck_assert_int_eq(tree_depth(&(struct tree){ 64, 0, 2, NULL }), 6);
	ck_assert_int_eq(tree_depth(&(struct tree){ 64, 5, 32, NULL }), 2);
}
END_TEST

START_TEST(a_gone_monitor_hands_its_children_up)
{
	bool gone[15] = { false };
	struct tree t = { 15, 0, 2, gone };
	int asked[15], kids[16], sub[16];

	/* Fan-out 2 from 0: 1 and 2; 1's are 3 and 4; 3's are 7 and 8. */
	ck_assert_int_eq(tree_subtree(&t, 1, sub, 16), 7); /* 1, 3, 4, 7, 8, 9, 10 */
	gone[1] = true;
	ck_assert_int_eq(tree_children(&t, 0, kids, 16), 3);
	ck_assert_int_eq(kids[0], 3);
	ck_assert_int_eq(kids[1], 4);
	ck_assert_int_eq(kids[2], 2);
	walk(&t, asked);
	for (int m = 0; m < 15; m++)
		ck_assert_int_eq(asked[m], m == 1 ? 0 : 1);
	/* 3 gone too: 0 asks 7, 8, 4, 2. */
	gone[3] = true;
	ck_assert_int_eq(tree_children(&t, 0, kids, 16), 4);
	ck_assert_int_eq(kids[0], 7);
	ck_assert_int_eq(tree_subtree(&t, 4, sub, 16), 3); /* 4, 9, 10 */
}
END_TEST

Suite *tree_suite(void)
{
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_monitor_is_asked_once);
	tcase_add_test(tc, a_gone_monitor_hands_its_children_up);
	suite_add_tcase(s, tc);
	return s;
}
