/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_plot — `parastack plot`: a recorded trace as a picture, like the paper's Figure 3: the
 * samples S with the suspicion threshold the model used at each moment, the suspicions, the
 * verdict and the checks after it, and below them the sampling interval with its doublings.
 * The model's view comes from stats/timeline; the drawing is gnuplot's. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../stats/stats.h"
#include "../launcher/commands.h"
#include "../base/options.h"
#include "../base/option_docs.h"

static const char plot_usage_head[] =
	"usage: parastack plot [options] TRACE\n"
	"Draw a sample trace (recorded with --trace) as the model saw it: S over time with the\n"
	"suspicion threshold, suspicions, the hang verdict, and the sampling interval.\n"
	"\n";
static const struct command_help plot_usage = { plot_usage_head, HELP_PLOT, NULL };

struct plot_options {
	struct common_options o;
	bool alpha_given, interval_given, max_interval_given, data;
	const char *output, *title;
};

/* The picture's format from the output name: 's' (svg), 'p' (png), or 0. */
static char plot_format(const char *path)
{
	size_t n = strlen(path);

	if (n > 4 && !strcasecmp(path + n - 4, ".svg"))
		return 's';
	if (n > 4 && !strcasecmp(path + n - 4, ".png"))
		return 'p';
	return 0;
}

/* Default output: the trace's base name without ".trace", plus ".svg". */
static void plot_default_output(const char *trace, char *out, size_t len)
{
	const char *base = strrchr(trace, '/');
	size_t n;

	base = base ? base + 1 : trace;
	n = strlen(base);
	if (n > 6 && !strcmp(base + n - 6, ".trace"))
		n -= 6;
	snprintf(out, len, "%.*s.svg", (int)n, base);
}

/* A gnuplot single-quoted string: quotes doubled, the only escape it has. */
static void gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* One word per verdict, for the table (gnuplot and awk split on blanks). */
static const char *plot_verdict_word(enum detector_verdict v)
{
	switch (v) {
	case DETECTOR_BUILDING: return "building";
	case DETECTOR_UNSETTLED: return "unsettled";
	case DETECTOR_HEALTHY: return "healthy";
	case DETECTOR_SUSPECT: return "suspicion";
	case DETECTOR_HANG: return "hang";
	}
	return "unknown";
}

static void plot_write_data(FILE *f, const struct timeline *tl)
{
	fputs("# t_s S threshold interval_ms verdict\n", f);
	for (size_t i = 0; i < tl->len; i++) {
		const struct timeline_row *r = &tl->rows[i];

		fprintf(f, "%.3f %d ", r->t_ms / 1e3, r->s);
		if (r->threshold >= 0)
			fprintf(f, "%d", r->threshold);
		else
			fputs("NaN", f);
		fprintf(f, " %.0f %s\n", r->interval_ms, plot_verdict_word(r->verdict));
	}
}

/* t_ms of a trace whose t = 0 is t0_unix as UTC text in format; "" when t0 is unknown. */
static void plot_clock(double t0_unix, double t_ms, const char *format, char *buf, size_t len)
{
	time_t t = (time_t)(t0_unix + t_ms / 1e3);
	struct tm tm;

	buf[0] = '\0';
	if (t0_unix > 0 && gmtime_r(&t, &tm))
		strftime(buf, len, format, &tm);
}

/* The last sample that showed the job computing before the hang: where the fault lies after. */
static int plot_write_last_progress(FILE *f, const struct timeline *tl, double t0_unix, int tag)
{
	char when[40];

	if (tl->last_progress_ms < 0)
		return tag;
	plot_clock(t0_unix, tl->last_progress_ms, " at %H:%M:%S UTC", when, sizeof(when));
	fprintf(f, "set arrow %d from %.3f, graph 0 to %.3f, graph 1 nohead lw 1.5 dt 3 lc rgb '#2f8f2f'\n",
		tag, tl->last_progress_ms / 1e3, tl->last_progress_ms / 1e3);
	/* The label on the side with room: left of the line in the right half of the plot. */
	bool right_half = tl->last_progress_ms - tl->rows[0].t_ms >
			  (tl->rows[tl->len - 1].t_ms - tl->rows[0].t_ms) / 2;

	fprintf(f, "set label %d 'last progress seen%s: the hang began after it' at %.3f, graph 0.55 %s front boxed tc rgb '#2f6f2f'\n",
		tag + 1, when, tl->last_progress_ms / 1e3,
		right_half ? "right offset -0.5,0" : "left offset 0.5,0");
	return tag + 2;
}

/* Marks at the verdict, at the last progress before it, and at each check the monitor recorded
 * after one. */
static void plot_write_marks(FILE *f, const struct trace *tr, const struct timeline *tl,
			     double alpha, double t0_unix)
{
	int tag = plot_write_last_progress(f, tl, t0_unix, 1);

	if (tl->first_hang_ms >= 0) {
		fprintf(f, "set arrow %d from %.3f, graph 0 to %.3f, graph 1 nohead lw 2 lc rgb '#c00000'\n",
			tag, tl->first_hang_ms / 1e3, tl->first_hang_ms / 1e3);
		fprintf(f, "set label %d 'hang verdict (alpha %g)' at %.3f, graph 0.95 right offset -0.5,0 front boxed tc rgb '#c00000'\n",
			tag++, alpha, tl->first_hang_ms / 1e3);
	}
	for (size_t i = 0; i < tr->nevents; i++) {
		const struct trace_event *e = &tr->events[i];
		const char *color = e->kind == TRACE_EVENT_SLOWDOWN ? "#707070" : "#c00000";
		const char *what = e->kind == TRACE_EVENT_HANG ? "hang confirmed" :
				   e->kind == TRACE_EVENT_SUSPECT ? "suspected: confirming" :
				   "moved: dismissed";

		fprintf(f, "set arrow %d from %.3f, graph 0 to %.3f, graph 1 nohead dt 2 lc rgb '%s'\n",
			tag, e->t_ms / 1e3, e->t_ms / 1e3, color);
		fprintf(f, "set label %d '%s' at %.3f, graph %.2f right offset -0.5,0 front boxed tc rgb '%s'\n", tag++,
			what, e->t_ms / 1e3, 0.85 - 0.07 * (double)(i % 4), color);
		/* The confirmation window: from the suspicion to what ended it. */
		if (e->kind == TRACE_EVENT_SUSPECT && i + 1 < tr->nevents)
			fprintf(f, "set object %d rect from %.3f, graph 0 to %.3f, graph 1 behind fc rgb '#fbe3e3' fs solid 1.0 noborder\n",
				tag++, e->t_ms / 1e3, tr->events[i + 1].t_ms / 1e3);
	}
}

/* The x axis's label: seconds since the monitor started, and the clock time of 0 when the trace
 * recorded it ("# t_ms 0 is unix time T"). */
static void plot_x_label(FILE *f, double t0_unix)
{
	char when[64];

	plot_clock(t0_unix, 0, "%Y-%m-%d %H:%M:%S UTC", when, sizeof(when));
	if (when[0])
		fprintf(f, "set xlabel 'time since the monitor started (s); 0 s is %s'\n", when);
	else
		fputs("set xlabel 'time since the monitor started (s)'\n", f);
}

static void plot_write_script(FILE *f, const char *data, const char *output, char format,
			      const char *title, const struct trace *tr, const struct timeline *tl,
			      double alpha, double t0_unix)
{
	int c = tr->points[0].c;
	double lo = tl->rows[0].interval_ms, hi = lo;
	double x0 = tl->rows[0].t_ms / 1e3, x1 = tl->rows[tl->len - 1].t_ms / 1e3;

	/* A trace of a second or less still gets an axis; a little room right of the last sample. */
	if (x1 - x0 < 1.0)
		x1 = x0 + 1.0;
	x1 += (x1 - x0) * 0.02;

	for (size_t i = 1; i < tl->len; i++) {
		lo = tl->rows[i].interval_ms < lo ? tl->rows[i].interval_ms : lo;
		hi = tl->rows[i].interval_ms > hi ? tl->rows[i].interval_ms : hi;
	}

	if (format == 's')
		fputs("set terminal svg size 1000,640 dynamic noenhanced font 'sans,11'\n", f);
	else
		fputs("set terminal pngcairo size 1000,640 noenhanced font 'sans,10'\n", f);
	fputs("set output ", f);
	gp_string(f, output);
	fputs("\nset multiplot title ", f);
	gp_string(f, title);
	fprintf(f, "\nset lmargin 10\nset rmargin 3\nset grid ytics lc rgb '#dddddd'\n"
		"set key outside top center horizontal\nset xrange [%.3f:%.3f]\n"
		"set style textbox opaque noborder\n", x0, x1);
	fprintf(f, "set size 1,0.66\nset origin 0,0.30\nset ylabel 'S (OUT_MPI of %d sampled)'\n"
		"set yrange [-0.3:%d.5]\nset ytics 1\nset format x ''\n", c, c);
	if (c > 20)
		fprintf(f, "set ytics %d\n", c / 10);
	plot_write_marks(f, tr, tl, alpha, t0_unix);
	fputs("plot ", f);
	gp_string(f, data);
	/* The threshold first, so the samples are drawn over it. */
	fputs(" using 1:3 with steps lw 1.5 dt 2 lc rgb '#303030' title 'threshold: suspicious when S is at or below it', "
	      "'' using 1:(strcol(5) eq 'healthy' || strcol(5) eq 'building' || strcol(5) eq 'unsettled' ? $2 : NaN) "
	      "with points pt 7 ps 0.5 lc rgb '#1f5fa8' title 'S: sampled ranks in application code', "
	      "'' using 1:(strcol(5) eq 'suspicion' ? $2 : NaN) "
	      "with points pt 7 ps 0.6 lc rgb '#e08000' title 'suspicious sample (nearly all waiting in MPI)', "
	      "'' using 1:(strcol(5) eq 'hang' ? $2 : NaN) "
	      "with points pt 5 ps 0.7 lc rgb '#c00000' title 'too many suspicious samples in a row: hang verdict'\n",
	      f);
	fputs("unset arrow\nunset label\nunset key\nset size 1,0.32\nset origin 0,0\n"
	      "set format x '%g'\nset ylabel 'interval I (ms)'\nset logscale y 2\n", f);
	plot_x_label(f, t0_unix);
	fprintf(f, "set yrange [%g:%g]\nset ytics (", lo / 1.5, hi * 1.5);
	for (double v = lo; v <= hi * 1.001; v *= 2)
		fprintf(f, "%s%.0f", v > lo ? ", " : "", v);
	fputs(")\n", f);
	fputs("plot ", f);
	gp_string(f, data);
	fputs(" using 1:4 with steps lw 2 lc rgb '#2f8f2f'\nunset multiplot\n", f);
}

/* Run gnuplot on script; 0, or -1 with one line said. */
static int plot_run_gnuplot(const char *script, const char *output)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		cmd_error("plot", "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			cmd_error("plot", "waitpid(gnuplot): %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		cmd_error("plot", "gnuplot is not installed or not in PATH; install it (apt-get install gnuplot-nox) or use --data");
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		cmd_error("plot", "gnuplot failed drawing %s (its message is above)", output);
		return -1;
	}
	return 0;
}

/* fopen for writing, saying which file could not be written. */
static FILE *plot_create(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		cmd_error("plot", "cannot write %s: %s", path, strerror(errno));
	return f;
}

/* Copy the drawn picture to where the user asked (a file never named to gnuplot, which would
 * run a name starting with '|' as a shell command): rename when on the same file system, else
 * copy into a regular file, never through a symbolic link. 0, or -1 with one line said. */
static int plot_deliver(const char *drawn, const char *output)
{
	char buf[65536];
	ssize_t n;
	int in, out, rc = 0;

	if (rename(drawn, output) == 0)
		return 0;
	if (errno != EXDEV) {
		cmd_error("plot", "cannot write %s: %s", output, strerror(errno));
		return -1;
	}
	if ((in = open(drawn, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (out = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		cmd_error("plot", "cannot write %s: %s", output, strerror(errno));
		if (in >= 0)
			close(in);
		return -1;
	}
	while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (close(out) != 0 || rc < 0) {
		cmd_error("plot", "cannot write %s: %s", output, strerror(errno));
		rc = -1;
	}
	close(in);
	unlink(drawn);
	return rc;
}

/* The Unix time of the trace's t = 0, from the monitor's "# t_ms 0 is unix time T" line among
 * its first lines; 0 when it has none. */
static double trace_start_unix(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[256];
	double t = 0;

	for (int i = 0; f && i < 64 && fgets(line, sizeof(line), f); i++)
		if (sscanf(line, "# t_ms 0 is unix time %lf", &t) == 1)
			break;
	if (f)
		fclose(f);
	return t > 0 ? t : 0;
}

/* Write data and script into a private directory, draw into it, deliver the picture, and
 * remove the rest (one cleanup path). */
static int plot_draw(const char *output, const char *title, const struct trace *tr,
		     const struct timeline *tl, double alpha, double t0_unix)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], data[PATH_MAX + 16], script[PATH_MAX + 16], drawn[PATH_MAX + 16];
	FILE *f;
	int rc = -1;

	snprintf(dir, sizeof(dir), "%s/parastack-plot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		cmd_error("plot", "mkdtemp(%s): %s; set TMPDIR to a writable directory", dir, strerror(errno));
		return -1;
	}
	snprintf(data, sizeof(data), "%s/samples.tsv", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	snprintf(drawn, sizeof(drawn), "%s/picture", dir);
	if (!(f = plot_create(data)))
		goto out;
	plot_write_data(f, tl);
	if (fclose(f) != 0 || !(f = plot_create(script)))
		goto out;
	plot_write_script(f, data, drawn, plot_format(output), title, tr, tl, alpha, t0_unix);
	if (fclose(f) != 0)
		goto out;
	rc = plot_run_gnuplot(script, output);
	if (rc == 0)
		rc = plot_deliver(drawn, output);
out:
	unlink(drawn);
	unlink(script);
	unlink(data);
	rmdir(dir);
	return rc;
}

/* The model settings: the user's, else the ones the trace recorded, else the defaults. */
static void plot_model_from_trace(struct plot_options *po, const struct trace *tr)
{
	if (!tr->has_model)
		return;
	if (!po->alpha_given)
		po->o.model.alpha = tr->alpha;
	if (!po->interval_given)
		po->o.model.interval_ms = tr->interval_ms;
	if (!po->max_interval_given)
		po->o.model.max_interval_ms = tr->max_interval_ms;
}

static void plot_summary(const char *output, const struct trace *tr, const struct timeline *tl)
{
	const struct timeline_row *last = &tl->rows[tl->len - 1];

	printf("plot: %s (%zu samples over %.1f s; ", output, tl->len,
	       (last->t_ms - tl->rows[0].t_ms) / 1e3);
	if (tl->first_hang_ms >= 0)
		printf("hang verdict at %.1f s", tl->first_hang_ms / 1e3);
	else
		printf("no hang verdict");
	if (tl->last_progress_ms >= 0)
		printf(", last progress seen at %.1f s", tl->last_progress_ms / 1e3);
	printf("; interval %.0f -> %.0f ms, %d doubling(s); %zu recorded check(s))\n",
	       tl->rows[0].interval_ms, last->interval_ms, tl->doublings, tr->nevents);
}

/* Options into po; the trace's path, or NULL after one line said (*status set). */
static const char *plot_parse(int argc, char **argv, struct plot_options *po, int *status)
{
	static const struct option longopts[] = {
		MODEL_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },
		{ "data", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx;

	memset(po, 0, sizeof(*po));
	common_options_default(&po->o);
	*status = EXIT_USAGE;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+ho:", longopts, &idx)) != -1) {
		if (c == 'h') {
			command_help_print(stdout, &plot_usage);
			*status = 0;
			return NULL;
		} else if (c == 'o') {
			po->output = optarg;
		} else if (c == 't') {
			po->title = optarg;
		} else if (c == 'd') {
			po->data = true;
		} else if (c == 0) {
			const char *name = longopts[idx].name;

			if (common_option_apply("plot", &po->o, name, optarg) < 0)
				return NULL;
			po->alpha_given |= !strcmp(name, "alpha");
			po->interval_given |= !strcmp(name, "interval");
			po->max_interval_given |= !strcmp(name, "max-interval");
		} else {
			option_unknown("plot", argv, longopts);
			return NULL;
		}
	}
	if (argc - optind != 1) {
		cmd_error("plot", "expected exactly one TRACE file; see 'parastack plot --help'");
		return NULL;
	}
	if (po->output && !plot_format(po->output)) {
		cmd_error("plot", "--output %s: the name must end in .svg or .png", po->output);
		return NULL;
	}
	return argv[optind];
}

/* Draw (or print) the model's view of a loaded trace: an exit status. */
static int plot_trace(const struct plot_options *po, const struct trace *tr, const char *path,
		      const char *output)
{
	struct timeline tl;
	int status = 0;

	if (timeline_build(tr, &po->o.model, !tr->has_model, &tl) < 0) {
		cmd_error("plot", "out of memory");
		return EXIT_INPUT;
	}
	if (po->data)
		plot_write_data(stdout, &tl);
	else if (plot_draw(output, po->title ? po->title : path, tr, &tl, po->o.model.alpha,
			   trace_start_unix(path)) < 0)
		status = EXIT_INPUT;
	else
		plot_summary(output, tr, &tl);
	timeline_free(&tl);
	return status;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_options po;
	struct trace tr;
	char err[256], output[PATH_MAX];
	int status;
	const char *path = plot_parse(argc, argv, &po, &status);

	if (!path)
		return status;
	if (trace_load(path, &tr, err, sizeof(err)) < 0) {
		cmd_error("plot", "%s: %s", path, err);
		return EXIT_INPUT;
	}
	plot_model_from_trace(&po, &tr);
	if (po.output)
		snprintf(output, sizeof(output), "%s", po.output);
	else
		plot_default_output(path, output, sizeof(output));
	if (common_options_match_trace("plot", &po.o, path, tr.points[0].c) < 0 ||
	    common_options_check("plot", &po.o) < 0 ||
	    (!po.data && option_output_path("plot", "output", output) < 0))
		status = EXIT_USAGE;
	else
		status = plot_trace(&po, &tr, path, output);
	trace_free(&tr);
	return status;
}
