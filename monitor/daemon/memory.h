/* SPDX-License-Identifier: BSD-3-Clause */
/* memory — the remembered model (issue 68 part 2): where a healthy run of a program leaves what
 * its models learned (stats/prior.h) for the next run of the same program, and takes it back.
 *
 * "The same program" is a key over what makes two runs alike: the job's owner, the executable
 * (its GNU build-id; without one its device, inode, size and modification time, so a rebuilt
 * binary is never trusted with the old one's model), the rank count, the sampled set's size
 * and the first local rank's command line (its script, its input). The file is
 * DIR/KEY.prior under --memory DIR (the user's option, or the site's in PARASTACK_OPTIONS or
 * the site's options file); --no-memory neither reads nor writes it. It is the job owner's
 * file, read and written with their credentials and never through a link (outfile.h); what it
 * holds is parsed as hostile (prior_parse). Only the leader calls these: it alone has the
 * model. */
#ifndef PARASTACK_MEMORY_H
#define PARASTACK_MEMORY_H

struct monitor;

/* At a round's start: nothing remembered yet; a recall pending under --memory. */
void memory_round_start(struct monitor *m);
/* After a sample, before the models take it, while m->memory_pending: once a local rank has
 * been seen to be its program (its key is then the program's, not its launcher's or a
 * wrapper's), give the models the remembered run's prior if there is one (said in one line
 * either way it matters). A rank that is not its program within the model's first
 * DETECTOR_MIN_SAMPLES samples leaves the round without memory. */
void memory_recall(struct monitor *m);
/* After a round the job's end ended (its ranks or its launcher gone), with no hang reported or under way: keep what the
 * models learned for the next run (said in one line when it cannot be kept). */
void memory_keep(struct monitor *m);

#endif
