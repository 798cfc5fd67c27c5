/* SPDX-License-Identifier: BSD-3-Clause */
/* view_html — a report as one page (view.h): the verdict and the job, the culprits and the
 * diagnosis, the merged stack tree as STAT draws it (collapsible, each node's ranks, waiting
 * and computing in their colours, the faulty ranks marked), the wait-for edges of a
 * communication hang, the faulty ranks' frames with file:line, the stragglers and the model's
 * timeline (the hang's began, suspected, confirmed and reported times, each straggler's since
 * and flagged). Self-contained: its CSS, its few lines of JS and its SVG are inline. */
#include "view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/ranges.h"

/* Text into HTML (element content and quoted attributes alike). */
static void esc(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void utc(FILE *out, json_t *t)
{
	time_t tt = (time_t)json_number_value(t);
	struct tm tm;
	char buf[64];

	if (json_is_number(t) && gmtime_r(&tt, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm))
		fputs(buf, out);
	else
		fputs("—", out);
}

static const char style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:72em;color:#222;padding:0 1em}"
	"h1{font-size:1.5em;margin:.2em 0}h1.hang{color:#b00}h1.none{color:#060}h2{font-size:1.15em;"
	"border-bottom:1px solid #ccc;margin-top:1.6em}table{border-collapse:collapse}td,th{padding:.15em"
	" .6em;text-align:left;vertical-align:top}th{color:#555;font-weight:600}code,.frame{font-family:"
	"ui-monospace,monospace}.tree details{margin-left:1.3em}.tree summary{cursor:pointer}.tree>details"
	"{margin-left:0}.ranks{color:#555;margin-left:.6em}.in{color:#1f5fa8}.out{color:#b35900}.faulty>"
	"summary .frame{font-weight:700}.faulty>summary .mark{color:#b00;font-weight:700;margin-left:.5em}"
	".legend span{margin-right:1.2em}.culprit{color:#b00;font-weight:600}button{margin:0 .4em .6em 0}"
	"svg text{font:12px system-ui,sans-serif}";

static const char script[] =
	"function setAll(o){document.querySelectorAll('.tree details').forEach(function(d){d.open=o;});}";

static void head(FILE *out, json_t *r)
{
	const char *verdict = str(r, "verdict"), *type = str(r, "hang_type");
	json_t *job = json_object_get(r, "job");

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
	      "<title>parastack: ", out);
	esc(out, verdict && !strcmp(verdict, "hang") ? "hang" : "no hang");
	if (str(job, "id")) {
		fputs(" — job ", out);
		esc(out, str(job, "id"));
	}
	fprintf(out, "</title><style>%s</style><script>%s</script></head><body>\n", style, script);
	if (verdict && !strcmp(verdict, "hang")) {
		fputs("<h1 class=\"hang\" id=\"verdict\">HANG DETECTED", out);
		if (type) {
			fputs(" — ", out);
			esc(out, !strcmp(type, "computation") ? "computation error" :
				 !strcmp(type, "communication") ? "communication error" : type);
		}
		fputs(" at ", out);
		utc(out, json_object_get(r, "detected_at"));
		fputs("</h1>\n", out);
	} else {
		fputs("<h1 class=\"none\" id=\"verdict\">", out);
		esc(out, verdict && !strcmp(verdict, "unwatched") ? "nothing watched: no MPI rank was found" : "no hang");
		fputs("</h1>\n", out);
	}
}

static void row(FILE *out, const char *name, const char *value)
{
	if (!value)
		return;
	fputs("<tr><th>", out);
	esc(out, name);
	fputs("</th><td>", out);
	esc(out, value);
	fputs("</td></tr>\n", out);
}

static void job_table(FILE *out, json_t *r)
{
	json_t *job = json_object_get(r, "job"), *h;
	size_t i;
	char num[32];

	fputs("<table class=\"job\">\n", out);
	row(out, "job", str(job, "id"));
	row(out, "user", str(job, "user"));
	row(out, "command", str(job, "command"));
	if (json_array_size(json_object_get(job, "hosts"))) {
		fputs("<tr><th>hosts</th><td>", out);
		json_array_foreach(json_object_get(job, "hosts"), i, h) {
			if (i >= VIEW_LIST_MAX)
				break;
			if (i)
				fputs(", ", out);
			esc(out, json_string_value(h));
		}
		fputs("</td></tr>\n", out);
	}
	if (json_is_integer(json_object_get(job, "launcher_pid"))) {
		snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(json_object_get(job, "launcher_pid")));
		row(out, "launcher pid", num);
	}
	row(out, "action", str(r, "action"));
	row(out, "next step", str(r, "next_step"));
	row(out, "parastack", str(r, "parastack_version"));
	fputs("</table>\n", out);
}

static void culprits(FILE *out, json_t *r)
{
	json_t *c;
	size_t i;

	if (!json_array_size(json_object_get(r, "culprits")) && !json_array_size(json_object_get(r, "diagnosis")))
		return;
	fputs("<h2>Culprits and diagnosis</h2>\n<ul id=\"culprits\">\n", out);
	json_array_foreach(json_object_get(r, "culprits"), i, c) {
		if (i >= VIEW_LIST_MAX)
			break;
		fprintf(out, "<li class=\"culprit\" data-rank=\"%lld\">rank %lld, ",
			(long long)json_integer_value(json_object_get(c, "rank")),
			(long long)json_integer_value(json_object_get(c, "rank")));
		esc(out, str(c, "evidence"));
		fputs(": ", out);
		esc(out, str(c, "why"));
		fputs("</li>\n", out);
	}
	json_array_foreach(json_object_get(r, "diagnosis"), i, c) {
		if (i >= VIEW_LIST_MAX)
			break;
		fputs("<li>", out);
		esc(out, json_string_value(c));
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

bool view_ranks_faulty(json_t *r, const char *ranges)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(r, "faulty_ranks"), i, v)
		if (i < VIEW_LIST_MAX && ranges_contains(ranges, (long)json_integer_value(v)))
			return true;
	return false;
}

bool view_node_faulty(json_t *r, json_t *node)
{
	json_t *child;
	size_t i;

	if (!view_ranks_faulty(r, str(node, "ranks")))
		return false;
	json_array_foreach(json_object_get(node, "children"), i, child)
		if (i < VIEW_LIST_MAX && view_ranks_faulty(r, str(child, "ranks")))
			return false;
	return true;
}

/* The state of the group whose call path is path: "in", "out" or "" (an inner node). */
static const char *path_state(json_t *r, const char *path)
{
	json_t *g;
	size_t i;

	json_array_foreach(json_object_get(r, "groups"), i, g) {
		const char *p = str(g, "path"), *s = str(g, "state");

		if (i < VIEW_LIST_MAX && p && s && !strcmp(p, path))
			return !strcmp(s, "IN_MPI") ? "in" : !strcmp(s, "OUT_MPI") ? "out" : "";
	}
	return "";
}

struct tree_walk {
	json_t *r;
	int nodes;
	char path[8192];
};

static void tree_node(FILE *out, struct tree_walk *w, json_t *node, int depth)
{
	const char *frame = str(node, "frame"), *ranks = str(node, "ranks");
	size_t at = strlen(w->path), i;
	json_t *child;
	bool faulty = view_node_faulty(w->r, node);

	if (++w->nodes > VIEW_TREE_NODES_MAX || depth >= VIEW_TREE_DEPTH_MAX)
		return;
	snprintf(w->path + at, sizeof(w->path) - at, "%s%s", at ? " > " : "", frame ? frame : "?");
	fprintf(out, "<details open class=\"%s %s\"><summary><span class=\"frame\">", path_state(w->r, w->path),
		faulty ? "faulty" : "");
	esc(out, frame ? frame : "?");
	fputs("</span><span class=\"ranks\">ranks ", out);
	esc(out, ranks);
	fprintf(out, " (%lld)</span>", (long long)json_integer_value(json_object_get(node, "count")));
	if (faulty)
		fputs("<span class=\"mark\">faulty</span>", out);
	fputs("</summary>\n", out);
	json_array_foreach(json_object_get(node, "children"), i, child)
		tree_node(out, w, child, depth + 1);
	fputs("</details>\n", out);
	w->path[at] = '\0';
}

static void tree(FILE *out, json_t *r)
{
	struct tree_walk w;
	json_t *node;
	size_t i;

	if (!json_array_size(json_object_get(r, "tree")))
		return;
	w.r = r;
	w.nodes = 0;
	w.path[0] = '\0';
	fputs("<h2>Stack tree</h2>\n<p class=\"legend\"><span class=\"in\">■ waiting in the runtime (IN_MPI)"
	      "</span><span class=\"out\">■ in application code (OUT_MPI)</span><span class=\"culprit\">faulty: the innermost "
	      "frame a culprit is in</span></p>\n<button onclick=\"setAll(true)\">expand all</button>"
	      "<button onclick=\"setAll(false)\">collapse all</button>\n<div class=\"tree\" id=\"tree\">\n", out);
	json_array_foreach(json_object_get(r, "tree"), i, node)
		tree_node(out, &w, node, 0);
	if (w.nodes > VIEW_TREE_NODES_MAX)
		fprintf(out, "<p>(the tree is cut at %d nodes)</p>\n", VIEW_TREE_NODES_MAX);
	fputs("</div>\n", out);
}

static json_t *rank_entry(json_t *r, json_int_t rank)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(r, "ranks"), i, e)
		if (json_integer_value(json_object_get(e, "rank")) == rank)
			return e;
	return NULL;
}

static void frames(FILE *out, json_t *r)
{
	json_t *v, *f;
	size_t i, k;

	json_array_foreach(json_object_get(r, "faulty_ranks"), i, v) {
		json_t *e = rank_entry(r, json_integer_value(v));

		if (i >= 16 || !e || !json_array_size(json_object_get(e, "frames")))
			continue;
		fprintf(out, "<h2>Rank %lld's stack</h2>\n<p>host ", (long long)json_integer_value(v));
		esc(out, str(e, "host"));
		fprintf(out, ", pid %lld, ", (long long)json_integer_value(json_object_get(e, "pid")));
		esc(out, str(e, "state"));
		fprintf(out, "</p>\n<table class=\"frames\" id=\"frames-%lld\"><tr><th>#</th><th>function</th>"
			"<th>file:line</th><th>module</th></tr>\n", (long long)json_integer_value(v));
		json_array_foreach(json_object_get(e, "frames"), k, f) {
			if (k >= VIEW_LIST_MAX)
				break;
			fprintf(out, "<tr><td>%zu</td><td class=\"frame\">", k);
			esc(out, str(f, "func") ? str(f, "func") : "??");
			fputs("</td><td><code>", out);
			if (str(f, "file")) {
				esc(out, str(f, "file"));
				if (json_is_integer(json_object_get(f, "line")))
					fprintf(out, ":%lld", (long long)json_integer_value(json_object_get(f, "line")));
			}
			fputs("</code></td><td>", out);
			esc(out, str(f, "module"));
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
	}
}

/* A list of ranks (JSON integers) as text. */
static void rank_list(FILE *out, json_t *a)
{
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v) {
		if (i >= VIEW_LIST_MAX) {
			fputs(", …", out);
			break;
		}
		fprintf(out, "%s%lld", i ? ", " : "", (long long)json_integer_value(v));
	}
}

/* The wait-for edges: a table, and for a job of at most 64 ranks a circle of ranks with arrows
 * from each waiting rank to those it waits for. */
static void wait_for(FILE *out, json_t *r)
{
	json_t *waits = json_object_get(json_object_get(r, "wait_for"), "waits"), *w, *t;
	size_t i, k, n = json_array_size(json_object_get(r, "ranks"));

	if (!json_array_size(waits))
		return;
	fputs("<h2>Who waits for whom</h2>\n<table id=\"waits\"><tr><th>rank</th><th>waits in</th>"
	      "<th>for ranks</th><th>what</th></tr>\n", out);
	json_array_foreach(waits, i, w) {
		if (i >= VIEW_LIST_MAX)
			break;
		fprintf(out, "<tr><td>%lld</td><td><code>", (long long)json_integer_value(json_object_get(w, "rank")));
		esc(out, str(w, "call"));
		fputs("</code></td><td>", out);
		rank_list(out, json_object_get(w, "waits_for"));
		esc(out, str(w, "waits_for_late"));
		fputs("</td><td>", out);
		esc(out, str(w, "what"));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (n == 0 || n > 64)
		return;
	fputs("<svg id=\"waitgraph\" width=\"420\" height=\"420\" viewBox=\"-210 -210 420 420\" role=\"img\">"
	      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" "
	      "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#888\"/></marker></defs>\n", out);
	json_array_foreach(waits, i, w) {
		json_int_t from = json_integer_value(json_object_get(w, "rank"));

		json_array_foreach(json_object_get(w, "waits_for"), k, t) {
			json_int_t to = json_integer_value(t);

			if (from < 0 || to < 0 || (size_t)from >= n || (size_t)to >= n || from == to)
				continue;
			double a = 2 * M_PI * from / n, b = 2 * M_PI * to / n;
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
				"marker-end=\"url(#arrow)\"/>\n", 170 * sin(a), -170 * cos(a), 158 * sin(b), -158 * cos(b));
		}
	}
	for (size_t k2 = 0; k2 < n; k2++) {
		double a = 2 * M_PI * k2 / n;
		char rk[24];
		bool faulty;

		snprintf(rk, sizeof(rk), "%zu", k2);
		faulty = view_ranks_faulty(r, rk);
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\" fill=\"#fff\">%zu</text>\n", 182 * sin(a), -182 * cos(a),
			faulty ? "#b00" : "#1f5fa8", 182 * sin(a), -182 * cos(a) + 4, k2);
	}
	fputs("</svg>\n", out);
}

static void stragglers(FILE *out, json_t *r)
{
	json_t *s;
	size_t i;

	if (!json_array_size(json_object_get(r, "stragglers")))
		return;
	fputs("<h2>Stragglers: ranks that held the job back</h2>\n<table id=\"stragglers\"><tr><th>rank</th>"
	      "<th>since</th><th>named at</th><th>until</th><th>others wait</th><th>it waits</th></tr>\n", out);
	json_array_foreach(json_object_get(r, "stragglers"), i, s) {
		if (i >= VIEW_LIST_MAX)
			break;
		fprintf(out, "<tr><td>%lld</td><td>", (long long)json_integer_value(json_object_get(s, "rank")));
		utc(out, json_object_get(s, "since"));
		fputs("</td><td>", out);
		utc(out, json_object_get(s, "flagged_at"));
		fputs("</td><td>", out);
		utc(out, json_object_get(s, "until"));
		fprintf(out, "</td><td>%.0f %%</td><td>%.0f %%</td></tr>\n",
			100 * json_number_value(json_object_get(s, "others_wait")),
			100 * json_number_value(json_object_get(s, "own_wait")));
	}
	fputs("</table>\n", out);
}

/* The timeline: the hang's four times and the stragglers' on one axis. */
static void timeline(FILE *out, json_t *r)
{
	static const char *const keys[] = { "began_at", "suspected_at", "confirmed_at", "reported_at" };
	static const char *const names[] = { "began", "suspected", "confirmed", "reported" };
	json_t *c = json_object_get(r, "confirmation"), *model = json_object_get(r, "model"), *s;
	double lo = INFINITY, hi = -INFINITY, t;
	size_t i;

	for (int k = 0; k < 4; k++)
		if (json_is_number(json_object_get(c, keys[k]))) {
			t = json_number_value(json_object_get(c, keys[k]));
			lo = fmin(lo, t), hi = fmax(hi, t);
		}
	json_array_foreach(json_object_get(r, "stragglers"), i, s)
		if (i < VIEW_LIST_MAX && json_is_number(json_object_get(s, "since"))) {
			lo = fmin(lo, json_number_value(json_object_get(s, "since")));
			hi = fmax(hi, json_number_value(json_object_get(s, "flagged_at")));
		}
	fputs("<h2>The model</h2>\n", out);
	if (json_is_object(model))
		fprintf(out, "<p id=\"model\">%lld samples, interval %.0f ms, sets of %lld, suspicion when S &le; %lld, "
			"alpha %g</p>\n", (long long)json_integer_value(json_object_get(model, "samples")),
			json_number_value(json_object_get(model, "interval_ms")),
			(long long)json_integer_value(json_object_get(model, "set_size")),
			(long long)json_integer_value(json_object_get(model, "threshold")),
			json_number_value(json_object_get(model, "alpha")));
	if (!(hi >= lo))
		return;
	double span = hi - lo > 1 ? hi - lo : 1;
	fputs("<svg id=\"timeline\" width=\"760\" height=\"110\" role=\"img\"><line x1=\"60\" y1=\"60\" x2=\"700\" "
	      "y2=\"60\" stroke=\"#444\"/>\n", out);
	for (int k = 0; k < 4; k++)
		if (json_is_number(json_object_get(c, keys[k]))) {
			double x = 60 + 640 * (json_number_value(json_object_get(c, keys[k])) - lo) / span;

			fprintf(out, "<circle cx=\"%.1f\" cy=\"60\" r=\"5\" fill=\"#b00\"/><text x=\"%.1f\" y=\"%d\" "
				"text-anchor=\"middle\">%s +%.0f s</text>\n", x, x, k % 2 ? 90 : 42, names[k],
				json_number_value(json_object_get(c, keys[k])) - lo);
		}
	json_array_foreach(json_object_get(r, "stragglers"), i, s) {
		if (i >= 16 || !json_is_number(json_object_get(s, "since")))
			continue;
		double a = 60 + 640 * (json_number_value(json_object_get(s, "since")) - lo) / span;
		double b = 60 + 640 * (json_number_value(json_object_get(s, "flagged_at")) - lo) / span;
		fprintf(out, "<rect x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"5\" fill=\"#b35900\"/><text x=\"%.1f\" "
			"y=\"%zu\">rank %lld slow</text>\n", a, 8 + 10 * (i % 2), fmax(b - a, 2), a, 8 + 10 * (i % 2) + 14,
			(long long)json_integer_value(json_object_get(s, "rank")));
	}
	fputs("</svg>\n", out);
}

int view_html(FILE *out, json_t *r)
{
	head(out, r);
	job_table(out, r);
	culprits(out, r);
	tree(out, r);
	frames(out, r);
	wait_for(out, r);
	stragglers(out, r);
	timeline(out, r);
	fputs("<p><small>parastack view: the report's JSON is the whole record; man parastack(1), --report, "
	      "says what each key means.</small></p>\n</body></html>\n", out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
