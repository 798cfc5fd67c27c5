/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_replay — `parastack replay`: evaluate the detection model offline on a recorded trace,
 * sampling it the way the live monitor would. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../stats/stats.h"
#include "../launcher/commands.h"
#include "../base/options.h"
#include "../base/option_docs.h"

static const char replay_usage_head[] =
	"usage: parastack replay [options] FILE\n"
	"Evaluate the hang-detection model on a sample trace (lines \"t_ms S C [PROGRESS]\"; '-' reads\n"
	"stdin). A trace with progress letters (parastack run --trace) also replays the whole decision:\n"
	"both models, which of them may speak, and the confirmation window, sample by sample.\n"
	"\n";
static const struct command_help replay_usage = { replay_usage_head, HELP_REPLAY, NULL };

static json_t *replay_json(const struct replay_result *r, const struct detector_config *cfg,
			   size_t points)
{
	const struct detector_info *in = &r->info;
	json_t *model = json_pack("{s:f, s:i, s:b, s:f, s:f}", "alpha", cfg->alpha, "set_size",
				  cfg->set_size, "usable", in->usable, "model_size", in->model_size,
				  "run_product", in->run_product);

	if (in->usable) {
		json_object_set_new(model, "p_hat", json_real(in->p_hat));
		json_object_set_new(model, "e", json_real(in->e));
		json_object_set_new(model, "q", json_real(in->q));
		json_object_set_new(model, "threshold", json_integer(in->threshold));
	} else {
		json_object_set_new(model, "p_hat", json_null());
		json_object_set_new(model, "e", json_null());
		json_object_set_new(model, "q", json_null());
		json_object_set_new(model, "threshold", json_null());
	}
	return json_pack("{s:s, s:o, s:f, s:f, s:I, s:I, s:s, s:{s:i, s:i, s:i, s:i, s:b}, s:f, s:o}",
			 "verdict", r->hang ? "hang" : "none",
			 "detected_at_ms", r->hang ? json_real(r->detected_at_ms) : json_null(),
			 "interval_ms", in->interval_ms, "last_sample_ms", r->last_ms,
			 "samples", (json_int_t)in->samples, "trace_points", (json_int_t)points,
			 "state", detector_verdict_name(in->verdict),
			 "randomness", "windows_passed", in->windows_passed, "windows_failed",
			 in->windows_failed, "windows_constant", in->windows_constant, "doublings", in->doublings,
			 "random", in->random_ok,
			 "longest_healthy_run_ms", in->longest_healthy_ms, "model", model);
}

static json_t *decision_json(const struct replay_decision *d, double confirm_s)
{
	return json_pack("{s:s, s:f, s:o, s:o, s:o, s:o, s:i, s:i, s:I, s:{s:b, s:f, s:f, s:i, s:f}}",
			 "verdict", d->hang ? "hang" : "none", "confirm_s", confirm_s,
			 "suspected_at_ms", d->suspected ? json_real(d->suspected_ms) : json_null(),
			 "basis", d->suspected ? json_string(confirm_basis_name(d->basis)) : json_null(),
			 "window_start_ms", d->suspected ? json_real(d->window_start_ms) : json_null(),
			 "confirmed_at_ms", d->hang ? json_real(d->hang_ms) : json_null(),
			 "suspicions", d->suspicions, "dismissed", d->dismissed,
			 "samples", (json_int_t)d->samples, "stall_model", "usable", d->stall.usable,
			 "p_hat", d->stall.p_hat, "q", d->stall.q, "k", d->stall.k,
			 "longest_healthy_ms", d->stall.longest_healthy_ms);
}

/* What the monitor recorded it decided ("#! suspect", "#! hang", "#! slowdown" lines). */
static void recorded_summary(const struct trace *tr)
{
	if (!tr->nevents)
		return;
	printf("  recorded by the monitor:");
	for (size_t i = 0; i < tr->nevents; i++)
		printf("%s %s at %.3f ms", i ? "," : "", trace_event_word(tr->events[i].kind), tr->events[i].t_ms);
	putchar('\n');
}

static json_t *recorded_json(const struct trace *tr)
{
	json_t *a = json_array();

	for (size_t i = 0; i < tr->nevents; i++)
		json_array_append_new(a, json_pack("{s:s, s:f}", "event", trace_event_word(tr->events[i].kind),
						   "t_ms", tr->events[i].t_ms));
	return a;
}

static void decision_summary(const struct replay_decision *d, double confirm_s)
{
	printf("decision (both models, the basis rule, a %g s confirmation window, on the progress letters):\n",
	       confirm_s);
	if (d->suspected)
		printf("  suspected at %.3f ms by the %s%s\n", d->suspected_ms, confirm_basis_name(d->basis),
		       d->basis == CONFIRM_BY_EVIDENCE ? " (nothing moved since before a model could judge)" : "");
	else
		printf("  no suspicion up to %.3f ms\n", d->last_ms);
	if (d->hang)
		printf("  hang confirmed at %.3f ms\n", d->hang_ms);
	else if (d->suspected)
		printf("  not confirmed by the end of the trace (%.3f ms)\n", d->last_ms);
	printf("  %d suspicion(s), %d dismissed; stall model: %s", d->suspicions, d->dismissed,
	       d->stall.usable ? "usable" : "building");
	if (d->stall.usable)
		printf(", %.1f %% of healthy samples quiet, %d quiet in a row reach alpha", 100 * d->stall.p_hat,
		       d->stall.k);
	putchar('\n');
}

static void replay_summary(const char *path, const struct replay_result *r,
			   const struct detector_config *cfg, size_t points)
{
	const struct detector_info *in = &r->info;

	printf("trace: %s (%zu points, C = %d); %ld samples taken\n", path, points, cfg->set_size,
	       in->samples);
	if (r->hang)
		printf("verdict: hang, decided by the sample at %.3f ms\n", r->detected_at_ms);
	else
		printf("verdict: none (no hang up to %.3f ms; last state: %s)\n", r->last_ms,
		       detector_verdict_name(in->verdict));
	if (in->usable)
		printf("model: suspicion when S <= %d; p_hat = %.4f, e = %.2f, q = %.4f, alpha = %g, n = %.1f\n",
		       in->threshold, in->p_hat, in->e, in->q, cfg->alpha, in->model_size);
	else
		printf("model: still building (n = %.1f, no usable tolerance level)\n", in->model_size);
	printf("interval: %.0f ms after %d doubling(s); randomness windows: %d passed, %d failed, %d constant "
	       "(untested)\n", in->interval_ms, in->doublings, in->windows_passed, in->windows_failed,
	       in->windows_constant);
}

static int replay_load(const char *path, struct trace *tr)
{
	char err[256];
	int rc;

	if (!strcmp(path, "-"))
		rc = trace_parse(stdin, tr, err, sizeof(err));
	else
		rc = trace_load(path, tr, err, sizeof(err));
	if (rc < 0)
		cmd_error("replay", "%s: %s", path, err);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		MODEL_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "confirm", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct common_options o;
	int c, idx;
	double confirm_s = -1;

	common_options_default(&o);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, &idx)) != -1) {
		if (c == 'h') {
			command_help_print(stdout, &replay_usage);
			return 0;
		}
		if (c == 'j') {
			o.json = true;
			continue;
		}
		if (c == 'W') {
			if (option_double("replay", "confirm", optarg, -1e-300, 1e7, &confirm_s) < 0)
				return EXIT_USAGE;
			continue;
		}
		if (c == 0) {
			if (common_option_apply("replay", &o, longopts[idx].name, optarg) < 0)
				return EXIT_USAGE;
			continue;
		}
		option_unknown("replay", argv, longopts);
		return EXIT_USAGE;
	}
	if (common_options_check("replay", &o) < 0)
		return EXIT_USAGE;
	if (argc - optind != 1) {
		cmd_error("replay", "expected exactly one trace FILE; see 'parastack replay --help'");
		return EXIT_USAGE;
	}

	const char *path = argv[optind];
	struct trace tr;

	if (replay_load(path, &tr) < 0)
		return EXIT_INPUT;
	if (common_options_match_trace("replay", &o, path, tr.points[0].c) < 0) {
		trace_free(&tr);
		return EXIT_USAGE;
	}
	o.model.set_size = tr.points[0].c;

	struct replay_trace rt;
	struct replay_source src;
	struct replay_result res;
	int status = 0;

	struct replay_decision dec;
	bool decided = replay_has_progress(&tr);

	if (confirm_s < 0)
		confirm_s = tr.has_watch ? tr.confirm_s : CONFIRM_DEFAULT_S;
	replay_trace_source(&src, &rt, &tr);
	if (replay_run(&src, &o.model, &res) < 0 ||
	    (decided && replay_decide(&tr, &o.model, confirm_s, &dec) < 0)) {
		cmd_error("replay", "out of memory");
		status = EXIT_INPUT;
	} else if (o.json) {
		json_t *j = replay_json(&res, &o.model, tr.len);

		json_object_set_new(j, "decision", decided ? decision_json(&dec, confirm_s) : json_null());
		json_object_set_new(j, "recorded", recorded_json(&tr));

		if (!j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0) {
			cmd_error("replay", "cannot write JSON to stdout");
			status = EXIT_INPUT;
		}
		putchar('\n');
		json_decref(j);
	} else {
		replay_summary(path, &res, &o.model, tr.len);
		if (decided)
			decision_summary(&dec, confirm_s);
		recorded_summary(&tr);
	}
	trace_free(&tr);
	return status;
}
