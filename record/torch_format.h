/* SPDX-License-Identifier: BSD-3-Clause */
/* torch_format — the collective record a torch.distributed rank keeps (record/python/
 * parastack_torchrec.py writes it, monitor/sample/record/torchrecord.c reads it at hang time): a memfd
 * mapped into the rank, named TORCHREC_MAPPING in its /proc/PID/maps, TORCHREC_SIZE bytes, little
 * endian, no pointers. The writer bumps gen to odd before a change and to even after it; a
 * reader that sees it odd, or changed across its copy, copies again or gives up. The Python
 * module's struct formats are this layout; bump TORCHREC_VERSION with any change to either. */
#ifndef PARASTACK_TORCH_FORMAT_H
#define PARASTACK_TORCH_FORMAT_H

#include <stdint.h>

#define TORCHREC_MAPPING "/memfd:parastack-torch-record"
#define TORCHREC_MAGIC "PSTORCH1"
#define TORCHREC_VERSION 1
#define TORCHREC_GROUPS 16 /* process groups recorded, in creation order (more: not recorded) */
#define TORCHREC_LISTED 32 /* a group's ranks listed (a larger group: its size only) */

enum torchrec_kind {
	TORCHREC_NONE = 0,
	TORCHREC_COLL = 1, /* a collective called from Python (dist.all_reduce, barrier, ...) */
	TORCHREC_DDP = 2,  /* DDP's gradient all-reduce: a backward after a DDP forward */
	TORCHREC_P2P = 3,  /* dist.send, recv, isend, irecv */
};

struct torchrec_header {
	char magic[8];
	uint32_t version, size;
	uint32_t gen;
	int32_t rank, world;
	uint32_t ngroups;
	uint64_t ops;        /* calls entered, all groups */
	int32_t cur_group;   /* the latest call: its group's slot, -1 none */
	uint32_t cur_kind;   /* enum torchrec_kind */
	uint64_t cur_seq;    /* its number among its group's calls of its kind (from 1; 0: p2p) */
	char cur_op[24];     /* "all_reduce", "DDP gradient all-reduce" */
	int32_t cur_peer;    /* a point-to-point call's peer, else -1 */
	uint32_t cur_line;   /* its Python call site: the trainer's line */
	uint64_t cur_numel;  /* elements of its tensor(s), 0 unknown */
	char cur_file[64];   /* the call site's file (its last 64 bytes) */
	int32_t prev_group;  /* the collective (or DDP all-reduce) before it */
	uint32_t prev_kind;
	uint64_t prev_seq;
	uint32_t in_op;      /* 1 while in the latest call */
	char pad[12];
} __attribute__((packed));

struct torchrec_group {
	uint32_t slot, size;
	int32_t ranks[TORCHREC_LISTED]; /* global ranks, -1 past the listed */
	uint64_t coll_entered, coll_left, ddp_entered, ddp_left;
	char backend[16];
	uint32_t member; /* this rank is one of the group's */
	char pad[4];
} __attribute__((packed));

struct torchrec_area {
	struct torchrec_header h;
	struct torchrec_group g[TORCHREC_GROUPS];
} __attribute__((packed));

_Static_assert(sizeof(struct torchrec_header) == 192, "parastack_torchrec.py's HEADER");
_Static_assert(sizeof(struct torchrec_group) == 192, "parastack_torchrec.py's GROUP");
#define TORCHREC_SIZE ((uint32_t)sizeof(struct torchrec_area))

#endif
