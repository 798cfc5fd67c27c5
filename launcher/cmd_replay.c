/* cmd_replay — `parastack replay`: evaluate the detection model offline on a recorded trace,
 * sampling it the way the live monitor would. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../stats/stats.h"
#include "commands.h"
#include "../monitor/daemon/options.h"

static const char replay_usage[] =
	"usage: parastack replay [options] FILE\n"
	"Evaluate the hang-detection model on a sample trace (lines \"t_ms S C\"; '-' reads stdin).\n"
	"\n"
	"  --alpha A          significance level of a hang verdict (default 0.001)\n"
	"  --interval MS      initial mean sampling interval (default 400)\n"
	"  --max-interval MS  cap on the sampling interval (default 30000)\n"
	"  --set-size C       expected set size; must match the trace's C\n"
	"  --seed N           seed of the sampling-step generator (default 1)\n"
	"  --json             print one JSON object instead of a summary\n"
	"  -h, --help         show this help\n"
	"  --version          print the version and the libraries it was built with\n";

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
	return json_pack("{s:s, s:o, s:f, s:f, s:I, s:I, s:s, s:{s:i, s:i, s:i, s:b}, s:f, s:o}",
			 "verdict", r->hang ? "hang" : "none",
			 "detected_at_ms", r->hang ? json_real(r->detected_at_ms) : json_null(),
			 "interval_ms", in->interval_ms, "last_sample_ms", r->last_ms,
			 "samples", (json_int_t)in->samples, "trace_points", (json_int_t)points,
			 "state", detector_verdict_name(in->verdict),
			 "randomness", "windows_passed", in->windows_passed, "windows_failed",
			 in->windows_failed, "doublings", in->doublings, "random", in->random_ok,
			 "longest_healthy_run_ms", in->longest_healthy_ms, "model", model);
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
	printf("interval: %.0f ms after %d doubling(s); randomness windows: %d passed, %d failed\n",
	       in->interval_ms, in->doublings, in->windows_passed, in->windows_failed);
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct common_options o;
	int c, idx;

	common_options_default(&o);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, &idx)) != -1) {
		if (c == 'h') {
			fputs(replay_usage, stdout);
			return 0;
		}
		if (c == 'j') {
			o.json = true;
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

	replay_trace_source(&src, &rt, &tr);
	if (replay_run(&src, &o.model, &res) < 0) {
		cmd_error("replay", "out of memory");
		status = EXIT_INPUT;
	} else if (o.json) {
		json_t *j = replay_json(&res, &o.model, tr.len);

		if (!j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0) {
			cmd_error("replay", "cannot write JSON to stdout");
			status = EXIT_INPUT;
		}
		putchar('\n');
		json_decref(j);
	} else {
		replay_summary(path, &res, &o.model, tr.len);
	}
	trace_free(&tr);
	return status;
}
