/* gather — every rank of the job as JSON, at hang time and for --stack: this monitor's own
 * (captured, with what each rank's recording layer says) and the other monitors' replies,
 * merged on the leader and sorted by rank. */
#include "gather.h"

#include "../hang/report.h"
#include "source.h"

/* The job's size as the records are checked against it: every rank watched, numbered from 0
 * (a rank numbered past the count widens it). */
static int job_size(const struct monitor *m)
{
	int n = m->job.nranks;

	for (int i = 0; i < m->job.nranks; i++)
		if (m->job.table[i].rank >= n)
			n = m->job.table[i].rank + 1;
	return n;
}

/* Every local rank as JSON; with_record: and what its recording layer says (unless
 * --no-record), for the report's wait-for analysis (source.h). */
json_t *gather_local(struct monitor *m, bool with_record)
{
	json_t *arr = json_array();
	int size = job_size(m);

	for (int i = 0; i < m->job.nlocal; i++)
		json_array_append_new(arr, rank_source.capture(m, i, with_record && !m->w.no_record, size));
	return arr;
}

/* Leader: append every other monitor's reply (a JSON array) to all. */
void gather_replies(struct monitor *m, json_t *all)
{
	for (int mon = 0; mon < m->comm.size; mon++) {
		if (mon == m->comm.me)
			continue;

		json_t *part = comm_recv_json(mon);

		if (json_is_array(part))
			json_array_extend(all, part);
		json_decref(part);
	}
}

/* Leader: a snapshot of every rank of the job, sorted by rank. The other monitors capture
 * their ranks while the leader captures its own. */
json_t *gather_all(struct monitor *m, bool with_record)
{
	comm_send_to_followers(&m->comm, with_record ? CMD_CAPTURE_RECORD : CMD_CAPTURE);

	json_t *all = gather_local(m, with_record);

	gather_replies(m, all);
	report_sort_by_rank(all);
	return all;
}
