/* SPDX-License-Identifier: BSD-3-Clause */
/* torchwait — whom a hung torch.distributed job's ranks wait for, from their collective records
 * (torchrecord.h, each rank's "collectives"), as Flight Recorder's "missing ranks" but read at
 * the hang, without its timeout. Per process group and kind of call (its collectives; DDP's
 * gradient all-reduces), the ranks waiting in its latest call and the members behind them:
 *   - a member behind that waits in no other group's call (it computes, or waits in a
 *     point-to-point call) is the culprit, certain;
 *   - ranks of one group in calls of another number or op than most of its waiters are the
 *     culprits (certain with a majority against them, else likely);
 *   - a member behind that waits in another group's call left the one both groups' members did
 *     after the same previous call: the fewer who went the other way are the culprits (certain
 *     when fewer, likely on a tie).
 * Pure JSON in, JSON out: no process is read here. */
#ifndef PARASTACK_TORCHWAIT_H
#define PARASTACK_TORCHWAIT_H

#include <jansson.h>
#include <stdbool.h>

/* {"culprits": [{"rank", "evidence", "why"}], "diagnosis": [sentences], "calls": [{"group",
 * "kind", "op", "seq", "site", "waiting", "behind"}]} from a snapshot's ranks, or NULL when no
 * rank has a record. */
json_t *torchwait_analyze(json_t *snap);
/* The MPI record's wait-for analysis (wf, NULL when no rank has one; taken) with the collective
 * records': their culprits where MPI's name none, their sentences after MPI's, their calls
 * under "torch_calls". */
json_t *torchwait_merge(json_t *wf, json_t *snap);
/* Does any rank of snap keep a collective record? */
bool torchwait_any_record(json_t *snap);

#endif
