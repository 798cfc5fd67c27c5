/* SPDX-License-Identifier: BSD-3-Clause */
/* torchrecord — a torch.distributed rank's collective record (record/torch_format.h) read from
 * outside at hang time and made JSON, the rank's "collectives": what torchwait.c matches across
 * ranks. The rank is hostile input: its maps are read to a fixed number of lines, the area is
 * copied once (again if a write was under way), and every field is checked or clamped. */
#ifndef PARASTACK_TORCHRECORD_H
#define PARASTACK_TORCHRECORD_H

#include <jansson.h>
#include <sys/types.h>

#include "../../../record/torch_format.h"

/* pid's record as JSON, or NULL when it keeps none (no torch.distributed, --no-record, a
 * Python older than 3.8) or it fails its checks. */
json_t *torchrecord_json(pid_t pid);
/* The same from an area already copied (the fuzzer's and the unit tests' way in). */
json_t *torchrecord_area_json(const struct torchrec_area *a);

#endif
