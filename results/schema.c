/* results/schema: the tables and views of a leversim results database.
 *
 * Tables (all STRICT):
 *   meta(key TEXT PK, value TEXT)            schema_version, created_by, ...
 *   runs(run_id TEXT PK, part, device, model, dataset, system, axes_json, config_json,
 *        seed INTEGER, git_sha, version, status ('ok'|'failed'|'invalid'), message, wall_s REAL)
 *   metrics(run_id -> runs ON DELETE CASCADE, name, value REAL (NULL = not a number), unit)
 *        primary key (run_id, name)
 *   steps(run_id -> runs ON DELETE CASCADE, cycle, tree_size, verified_tokens, accepted,
 *        draft_s, verify_s, lmhead_s)  primary key (run_id, cycle)
 *   run_settings(run_id -> runs ON DELETE CASCADE, key, value_text (as written or the
 *        default's text), value_num REAL (the value in base units; NULL when not a number),
 *        unit (base unit of value_num, NULL when none), type, is_default 0|1)
 *        primary key (run_id, key): every setting the run read, given or defaulted
 *
 * A "configuration" is (part, device, model, dataset, axes_json, seed): the runs of one
 * configuration differ only by system, so ratios between systems are taken within it.
 *
 * Views (columns):
 *   v_runs       one row per ok run: run_id, part, device, model, dataset, system, axes_json,
 *                seed, then one column per metric of LS_DB_METRICS (NULL when not written).
 *   v_settings   every resolved setting of every run: run_id, part, device, model, dataset,
 *                system, status, key, value_text, value_num, unit, type, is_default.
 *   v_failed     runs that are not ok: part, device, model, dataset, system, axes_json, status,
 *                message.
 *   v_vs_lever   every ok run of every part beside the lever and ar-flash runs of its
 *                configuration: part, device, model, dataset, axes_json, seed, system,
 *                throughput_tps, lever_tps, ar_flash_tps, lever_speedup (= lever_tps /
 *                throughput_tps), vs_lever (= throughput_tps / lever_tps), vs_ar_flash.
 *   v_speedup    v_vs_lever restricted to part 'main' (the 48 configurations of Fig. 10).
 *   v_summary    per system over v_speedup (lever itself excluded): system, configs,
 *                speedup_mean (arithmetic mean of lever_speedup, the paper's "average"),
 *                speedup_geomean (exp(avg(ln x))), speedup_min, speedup_max.
 *   fig05        part 'budget': device, model, dataset, system, budget (axis draft.budget),
 *                throughput_tps, tau, verify_s_mean, target_calls_per_token, decode_s,
 *                tree_size_mean.
 *   fig10        part 'main': device, model, dataset, system, throughput_tps, vs_lever,
 *                vs_ar_flash.
 *   fig11        parts 'main'/'draft-policies', speculative systems: device, model, dataset,
 *                system, throughput_tps, tau, tps_vs_specinfer, tau_vs_specinfer.
 *   fig12        parts 'main'/'pruning', systems lever and lever-no-prune: device, model,
 *                dataset, system, throughput_tps, tau, wasted_verify, verify_s_mean,
 *                verify_tokens_mean, tps_vs_no_prune.
 *   fig13        part 'mapping': device, model, dataset, system, map (axis policy.map),
 *                draft_s_mean, throughput_tps, util_npu, util_cpu.
 *   fig14        part 'lmhead': device, model, dataset, system, lmhead (axis map.lmhead),
 *                lmhead_s_mean, share_lmhead, throughput_tps.
 *   table1       oneplus-12: ar-flash (a one-token verification) of part 'table1' (part 'main'
 *                when the database has no 'table1' runs), and specinfer's 64-token tree of part
 *                'table1-tree': part, model, datasets, io_share (mean over datasets),
 *                io_share_min, io_share_max, io_busy_share (Table 1's other reading: flash
 *                busy time over verification time, mean over datasets).
 *   overlap      part of role part.overlap: model, dataset, system, overlap, budget (axes
 *                axis.overlap, axis.budget), verify_s_mean, throughput_tps, tau: does
 *                verification grow with the tree under each overlap mode?
 *   consistency  part of role part.main, per system: runs, err_median (median over the runs of
 *                each run's median per-cycle |cost model's cycle time - simulated| / simulated),
 *                err_max, bias_mean (mean of the runs' signed medians): do the policies plan
 *                with the cost the simulation charges (runner/decode/cycle_account.c)?
 *   regime       parts of roles part.regime (the systems' claims), part.regime_map, part.regime_lmhead:
 *                one row per run, with the figure columns the claims' tests read (runner/report/
 *                figures.c): claims ('systems' | 'map' | 'lmhead'), assumption (the assumption
 *                the run's case changes, e.g. 'npu static-graph', or 'default'), part, device,
 *                model, dataset, system, map, lmhead, throughput_tps, vs_lever, tps_vs_no_prune,
 *                wasted_verify, draft_s_mean, lmhead_s_mean, io_share.
 *   lever_tree   part 'main', system lever: device, model, datasets, tree_size (mean of the runs'
 *                mean tree sizes), tree_size_min, tree_size_max, tau.
 *   energy       part 'main': device, system, configs, energy_per_token_j (mean), throughput_tps
 *                (mean).
 *   sensitivity  part 'sensitivity': device, model, dataset, bandwidth (axis
 *                device.flash.bandwidth as written), bandwidth_gbps (its number), system,
 *                throughput_tps, lever_speedup.
 *   throughput   part 'main', one row per configuration: device, model, dataset, then the
 *                tokens/s of each system of pivot_systems as a column named after it (NULL
 *                when the run is missing or not valid, e.g. ar-mem that does not fit).
 *   summary      v_summary under the name the reproduce command prints.
 *
 * Intervals (results/stats.c: 95 %, paired percentile bootstrap over prompts; NULL with fewer
 * than 5 prompts): tables prompts (per-prompt sums of each run), metric_ci (run_id, name,
 * value, lo, hi, prompts), ratio_ci (run_id, ref_system, ref_run_id, metric, ratio, lo, hi,
 * prompts: the run over the reference system's run of its configuration, for throughput_tps
 * and tau, references lever, ar-flash, specinfer, lever-no-prune) and summary_ci (part, system,
 * configs, prompts, mean, mean_lo, mean_hi, geomean, geomean_lo, geomean_hi: Lever's speedup
 * over the system across the configurations). Runs of one configuration may decode different
 * numbers of prompts (the replay's sizing): a ratio between two runs then pairs the prompts
 * both decoded (prompt j is the same text in both) and predicts the smaller run over the
 * larger one's other prompts (sim/boot.h, the regression estimate), so the ratio columns of
 * v_vs_lever, v_speedup, fig10, fig11 and fig12 are ratio_ci's estimates (the quotient of the
 * two runs' own metrics only where ratio_ci has none). A study may declare that it writes
 * fewer (roles intervals.metrics and intervals.ratios, ls_db_intervals_role_check): metric_ci
 * then holds the declared metrics' rows only, ratio_ci and summary_ci nothing (none) or every
 * pair with lo and hi NULL where no view below shows them (shown: the paper replay), and the
 * interval columns below are NULL for the rest. Interval columns of the views:
 *   v_runs       + prompts, throughput_tps_lo/hi, tau_lo/hi;
 *   v_vs_lever, v_speedup  + lever_speedup_lo/hi, vs_lever_lo/hi, vs_ar_flash_lo/hi, prompts;
 *   v_summary, summary  + speedup_mean_lo/hi, speedup_geomean_lo/hi, prompts;
 *   fig10        + ratio_lo/hi (of vs_lever, the plotted ratio), vs_ar_flash_lo/hi;
 *   fig11        + ratio_lo/hi (of tps_vs_specinfer), tau_ratio_lo/hi (of tau_vs_specinfer);
 *   fig12        + tps_vs_no_prune_lo/hi;
 *   table1       + io_share_lo/hi (mean over datasets +- the mean of the per-run half-widths:
 *                the datasets share their prompt draws, so their errors may add up fully);
 *   v_metric_ci  every run's metric intervals, one row per (run, metric);
 *   lever_ratios part main, one row per configuration: vs_ar_flash, vs_specinfer (Lever's
 *                speedup over each) with _lo/_hi, vs_fastest_flash (Lever's speedup over the
 *                fastest system of role systems.flash: > 1 where Lever is fastest), prompts.
 * Geometric means use ln()/exp(). Debian 12's libsqlite3 3.40.1 is built with
 * SQLITE_ENABLE_MATH_FUNCTIONS, but other builds are not, so ls_db_open registers its own
 * (libm log/exp) on every connection; the views then work whatever the library's options. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results/db_int.h"

/* The metrics the runner writes and v_runs pivots, in column order. */
static const char *const metric_names[] = {
    "throughput_tps", "tau", "ttft_s", "token_latency_p50_s", "token_latency_p99_s",
    "io_share", "wasted_verify", "util_npu", "util_cpu", "util_flash", "energy_per_token_j",
    "share_draft", "share_verify", "share_lmhead", "verify_s_mean", "draft_s_mean",
    "lmhead_s_mean", "tree_size_mean", "verify_tokens_mean", "cycles", "tokens",
    "target_calls_per_token", "decode_s", "wasted_verify_tokens", "resident_layers",
    "prune_calls", "accepted_pruned", "draft_work_s_mean", "io_busy_share", "cost_err_median",
    "cost_bias_median", "planner_tau", NULL};

const char *ls_db_metric_name(int i)
{
  if (i < 0 || i >= (int)(sizeof metric_names / sizeof *metric_names) - 1) return NULL;
  return metric_names[i];
}

/* The roles a study gives its names (table roles, written by the driver from the experiment's
 * `roles` block, docs/EXPERIMENTS.md): the views compare the systems, parts and sweep axes
 * that fill these roles and name none themselves, so results/ knows no policy. A role the
 * database does not fill leaves the columns that need it NULL. */
static const struct { const char *name, *about; } role_docs[] = {
    {"system.reference", "the system whose speedups the views report (lever_speedup, vs_lever)"},
    {"system.baseline", "the autoregressive baseline of the ratios (vs_ar_flash, table1)"},
    {"system.tree", "the tree baseline of the draft-policy ratios (fig11)"},
    {"system.no_prune", "the reference system without pruning (fig12)"},
    {"system.ar_prefix", "name prefix of the autoregressive systems (left out of fig11)"},
    {"systems.pivot", "comma-separated systems, the columns of the throughput view, in order"},
    {"systems.flash", "comma-separated systems Lever must outpace (lever_ratios.vs_fastest_flash)"},
    {"part.main", "the part of the headline configurations (v_speedup, summary, check)"},
    {"part.budget", "the budget sweep (fig05)"},
    {"part.draft_policies", "the draft-policy comparison (fig11)"},
    {"part.pruning", "the pruning ablation (fig12)"},
    {"part.mapping", "the draft-stage mapping comparison (fig13)"},
    {"part.lmhead", "the output-projection placement comparison (fig14)"},
    {"part.table1", "the one-token verifications of Table 1"},
    {"part.table1_tree", "the tree verifications of Table 1"},
    {"part.regime", "the regime map's systems"},
    {"part.regime_map", "the regime map's mappings"},
    {"part.regime_lmhead", "the regime map's projections"},
    {"part.sensitivity", "the flash-bandwidth sensitivity"},
    {"part.overlap", "Fig. 5's budget dilemma under each verify.overlap (the evidence for its default)"},
    {"device.table1", "the device of Table 1"},
    {"axis.budget", "the sweep axis of the budget part"},
    {"axis.map", "the sweep axis of the mapping parts"},
    {"axis.lmhead", "the sweep axis of the projection parts"},
    {"axis.npu", "regime map: the NPU regime axis"},
    {"axis.overlap", "regime map axis: verification overlap"},
    {"axis.head", "regime map axis: where the output head lives"},
    {"axis.pad", "regime map axis: NPU padding of small batches"},
    {"axis.matrix", "regime map axis: whether the NPU runtime has a matrix path"},
    {"axis.bandwidth", "the sweep axis of the sensitivity part"},
    {"intervals.metrics", "comma-separated metrics whose per-run intervals the study writes (metric_ci; unset: all)"},
    {"intervals.ratios", "all (unset), shown or none: which paired ratio intervals the study writes (ratio_ci, summary_ci; shown: those a view shows, the other pairs' estimates alone)"},
    {NULL, NULL}};

const char *ls_db_role_name(int i)
{
  if (i < 0 || i >= (int)(sizeof role_docs / sizeof *role_docs) - 1) return NULL;
  return role_docs[i].name;
}
const char *ls_db_role_about(int i)
{
  if (i < 0 || i >= (int)(sizeof role_docs / sizeof *role_docs) - 1) return NULL;
  return role_docs[i].about;
}

/* The value of a role, as SQL (NULL when the database does not fill it). */
#define R(role) "(SELECT value FROM roles WHERE role = '" role "')"
/* The value in run A's axes of the sweep axis of a role. */
#define AXP(A, role) "json_extract(" A ".axes_json, '$.\"' || " R(role) " || '\"')"
/* The run's value of the sweep axis of a role (unprefixed axes_json). */
#define AX(role) "json_extract(axes_json, '$.\"' || " R(role) " || '\"')"

static const char tables_sql[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;"
    "CREATE TABLE IF NOT EXISTS runs("
    " run_id TEXT PRIMARY KEY, part TEXT NOT NULL, device TEXT NOT NULL, model TEXT NOT NULL,"
    " dataset TEXT NOT NULL, system TEXT NOT NULL,"
    " axes_json TEXT NOT NULL CHECK(json_valid(axes_json) AND json_type(axes_json)='object'),"
    " config_json TEXT NOT NULL CHECK(json_valid(config_json)),"
    " seed INTEGER NOT NULL, git_sha TEXT, version TEXT,"
    " status TEXT NOT NULL CHECK(status IN ('ok','failed','invalid')), message TEXT,"
    " wall_s REAL NOT NULL) STRICT;"
    "CREATE INDEX IF NOT EXISTS runs_config ON runs(part, device, model, dataset, system);"
    "CREATE TABLE IF NOT EXISTS metrics("
    " run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, name TEXT NOT NULL,"
    " value REAL, unit TEXT, PRIMARY KEY(run_id, name)) STRICT, WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS steps("
    " run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, cycle INTEGER NOT NULL,"
    " tree_size INTEGER NOT NULL, verified_tokens INTEGER NOT NULL, accepted INTEGER NOT NULL,"
    " draft_s REAL NOT NULL, verify_s REAL NOT NULL, lmhead_s REAL NOT NULL,"
    " PRIMARY KEY(run_id, cycle)) STRICT, WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS run_settings("
    " run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, key TEXT NOT NULL,"
    " value_text TEXT NOT NULL, value_num REAL, unit TEXT, type TEXT NOT NULL,"
    " is_default INTEGER NOT NULL CHECK(is_default IN (0, 1)),"
    " PRIMARY KEY(run_id, key)) STRICT, WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS roles(role TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;";

/* Per-prompt sums and the intervals drawn from them (results/stats.c): separate statements. */
static const char stats_tables_sql[] =
    "CREATE TABLE IF NOT EXISTS prompts("
    " run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, prompt INTEGER NOT NULL,"
    " tokens REAL, cycles REAL, tau_sum REAL, decode_s REAL, ttft_s REAL, draft_s REAL,"
    " draft_work_s REAL, verify_s REAL, lmhead_s REAL, tree_nodes REAL, verify_tok REAL,"
    " io_wait_s REAL, compute_s REAL, waste_s REAL, token_layers REAL, waste_layers REAL,"
    " npu_busy_s REAL, cpu_busy_s REAL, flash_busy_s REAL, energy_j REAL,"
    " PRIMARY KEY(run_id, prompt)) STRICT, WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS metric_ci("
    " run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, name TEXT NOT NULL,"
    " value REAL, lo REAL, hi REAL, prompts INTEGER NOT NULL,"
    " PRIMARY KEY(run_id, name)) STRICT, WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS ratio_ci("
    " run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE, ref_system TEXT NOT NULL,"
    " ref_run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,"
    " metric TEXT NOT NULL, ratio REAL, lo REAL, hi REAL,"
    " prompts INTEGER NOT NULL, PRIMARY KEY(run_id, ref_system, metric)) STRICT, WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS summary_ci("
    " part TEXT NOT NULL, system TEXT NOT NULL, configs INTEGER NOT NULL,"
    " prompts INTEGER NOT NULL, mean REAL, mean_lo REAL, mean_hi REAL, geomean REAL,"
    " geomean_lo REAL, geomean_hi REAL, PRIMARY KEY(part, system)) STRICT, WITHOUT ROWID;";

/* Same configuration as run s: the join condition used by every ratio. */
#define SAME_CONFIG(a, s)                                                                  \
  "(" a ".part, " a ".device, " a ".model, " a ".dataset, " a ".axes_json, " a ".seed) = (" s \
  ".part, " s ".device, " s ".model, " s ".dataset, " s ".axes_json, " s ".seed)"
/* Same configuration apart from the swept axes (for parts whose axes name the variant). */
#define SAME_CELL(a, s)                                                                    \
  "(" a ".part, " a ".device, " a ".model, " a ".dataset, " a ".seed) = (" s ".part, " s   \
  ".device, " s ".model, " s ".dataset, " s ".seed)"

/* The paired interval of run s's metric M against the system of role ROLE (alias A). */
#define RATIO_CI(A, s, ROLE, M)                                                              \
  " LEFT JOIN ratio_ci " A " ON " A ".run_id = " s ".run_id AND " A ".ref_system = " R(ROLE) \
  " AND " A ".metric = '" M "'"

/* A ratio between runs a and s of one configuration: the quotient of their own metrics when
 * they decoded the same prompts, else ratio_ci's estimate for runs of different sizes (the
 * shared prompts paired, sim/boot.h; the quotient when there is none). */
#define PAIRED(est, quotient, a, s)                                                        \
  "CASE WHEN " a ".prompts IS NOT " s ".prompts AND " est " IS NOT NULL THEN " est " ELSE " \
  quotient " END"

static const char views_sql[] =
    "CREATE VIEW v_settings AS SELECT r.run_id, r.part, r.device, r.model, r.dataset, r.system,"
    " r.status, s.key, s.value_text, s.value_num, s.unit, s.type, s.is_default"
    " FROM runs r JOIN run_settings s ON s.run_id = r.run_id"
    " ORDER BY r.part, r.device, r.model, r.dataset, r.system, r.axes_json, r.seed, s.key;"
    "CREATE VIEW v_failed AS SELECT part, device, model, dataset, system,"
    " axes_json, status, message FROM runs WHERE status <> 'ok'"
    " ORDER BY part, device, model, dataset, system, axes_json;"
    "CREATE VIEW v_vs_lever AS SELECT s.part, s.device, s.model, s.dataset,"
    " s.axes_json, s.seed, s.system, s.throughput_tps, l.throughput_tps AS lever_tps,"
    " a.throughput_tps AS ar_flash_tps,"
    " " PAIRED("1 / cl.ratio", "l.throughput_tps / s.throughput_tps", "l", "s") " AS lever_speedup,"
    " " PAIRED("cl.ratio", "s.throughput_tps / l.throughput_tps", "l", "s") " AS vs_lever,"
    " " PAIRED("ca.ratio", "s.throughput_tps / a.throughput_tps", "a", "s") " AS vs_ar_flash,"
    " 1 / cl.hi AS lever_speedup_lo, 1 / cl.lo AS lever_speedup_hi,"
    " cl.lo AS vs_lever_lo, cl.hi AS vs_lever_hi, ca.lo AS vs_ar_flash_lo,"
    " ca.hi AS vs_ar_flash_hi, s.prompts"
    " FROM v_runs s"
    " LEFT JOIN v_runs l ON l.system = " R("system.reference") " AND " SAME_CONFIG("l", "s")
    " LEFT JOIN v_runs a ON a.system = " R("system.baseline") " AND " SAME_CONFIG("a", "s")
    RATIO_CI("cl", "s", "system.reference", "throughput_tps") RATIO_CI("ca", "s", "system.baseline", "throughput_tps")
    " ORDER BY s.part, s.device, s.model, s.dataset, s.axes_json, s.seed, s.system;"
    "CREATE VIEW v_speedup AS SELECT * FROM v_vs_lever WHERE part = " R("part.main") ";"
    "CREATE VIEW v_summary AS SELECT v.system, count(*) AS configs,"
    " avg(lever_speedup) AS speedup_mean, exp(avg(ln(lever_speedup))) AS speedup_geomean,"
    " min(lever_speedup) AS speedup_min, max(lever_speedup) AS speedup_max,"
    " c.mean_lo AS speedup_mean_lo, c.mean_hi AS speedup_mean_hi,"
    " c.geomean_lo AS speedup_geomean_lo, c.geomean_hi AS speedup_geomean_hi,"
    " c.prompts AS prompts"
    " FROM v_speedup v LEFT JOIN summary_ci c ON c.part = " R("part.main") " AND c.system = v.system"
    " WHERE v.system <> " R("system.reference") " AND lever_speedup > 0"
    " GROUP BY v.system ORDER BY v.system;"
    "CREATE VIEW fig05 AS SELECT device, model, dataset, system,"
    " CAST(" AX("axis.budget") " AS REAL) AS budget, throughput_tps,"
    " tau, verify_s_mean, target_calls_per_token, decode_s, tree_size_mean"
    " FROM v_runs WHERE part = " R("part.budget") " ORDER BY device, model, dataset, system, budget;"
    "CREATE VIEW fig10 AS SELECT device, model, dataset, system, throughput_tps,"
    " vs_lever, vs_ar_flash, vs_lever_lo AS ratio_lo, vs_lever_hi AS ratio_hi,"
    " vs_ar_flash_lo, vs_ar_flash_hi FROM v_speedup;"
    "CREATE VIEW fig11 AS SELECT s.device, s.model, s.dataset, s.system,"
    " s.throughput_tps, s.tau, " PAIRED("ct.ratio", "s.throughput_tps / r.throughput_tps", "r", "s") " AS tps_vs_specinfer,"
    " " PAIRED("cu.ratio", "s.tau / r.tau", "r", "s") " AS tau_vs_specinfer, ct.lo AS ratio_lo, ct.hi AS ratio_hi,"
    " cu.lo AS tau_ratio_lo, cu.hi AS tau_ratio_hi FROM v_runs s"
    " LEFT JOIN v_runs r ON r.system = " R("system.tree") " AND " SAME_CONFIG("r", "s")
    RATIO_CI("ct", "s", "system.tree", "throughput_tps") RATIO_CI("cu", "s", "system.tree", "tau")
    " WHERE s.part IN (" R("part.main") ", " R("part.draft_policies") ") AND s.system NOT LIKE " R("system.ar_prefix") " || '%'"
    " ORDER BY s.device, s.model, s.dataset, s.system;"
    "CREATE VIEW fig12 AS SELECT s.device, s.model, s.dataset, s.system,"
    " s.throughput_tps, s.tau, s.wasted_verify, s.verify_s_mean, s.verify_tokens_mean,"
    " " PAIRED("cn.ratio", "s.throughput_tps / r.throughput_tps", "r", "s") " AS tps_vs_no_prune, cn.lo AS tps_vs_no_prune_lo,"
    " cn.hi AS tps_vs_no_prune_hi FROM v_runs s"
    " LEFT JOIN v_runs r ON r.system = " R("system.no_prune") " AND " SAME_CONFIG("r", "s")
    RATIO_CI("cn", "s", "system.no_prune", "throughput_tps")
    " WHERE s.part IN (" R("part.main") ", " R("part.pruning") ") AND s.system IN (" R("system.reference") ", " R("system.no_prune") ")"
    " ORDER BY s.device, s.model, s.dataset, s.system;"
    "CREATE VIEW fig13 AS SELECT device, model, dataset, system,"
    " " AX("axis.map") " AS map, draft_s_mean, throughput_tps,"
    " util_npu, util_cpu FROM v_runs WHERE part = " R("part.mapping") ""
    " ORDER BY device, model, dataset, system, map;"
    "CREATE VIEW fig14 AS SELECT device, model, dataset, system,"
    " " AX("axis.lmhead") " AS lmhead, lmhead_s_mean, share_lmhead,"
    " throughput_tps FROM v_runs WHERE part = " R("part.lmhead") ""
    " ORDER BY device, model, dataset, system, lmhead;"
    "CREATE VIEW table1 AS SELECT part, model, count(*) AS datasets,"
    " avg(io_share) AS io_share, min(io_share) AS io_share_min, max(io_share) AS io_share_max,"
    " CASE WHEN count(c.lo) = count(*) THEN avg(io_share) - avg(c.hi - c.lo) / 2 END"
    " AS io_share_lo,"
    " CASE WHEN count(c.lo) = count(*) THEN avg(io_share) + avg(c.hi - c.lo) / 2 END"
    " AS io_share_hi, avg(io_busy_share) AS io_busy_share"
    " FROM v_runs LEFT JOIN metric_ci c ON c.run_id = v_runs.run_id AND c.name = 'io_share'"
    " WHERE device = " R("device.table1") " AND ((part = " R("part.table1") " AND system = " R("system.baseline") ")"
    " OR (part = " R("part.table1_tree") " AND system = " R("system.tree") ") OR (part = " R("part.main") " AND system = " R("system.baseline") ""
    " AND NOT EXISTS (SELECT 1 FROM runs WHERE part = " R("part.table1") " AND status = 'ok')))"
    " GROUP BY part, model ORDER BY part, io_share;"
    "CREATE VIEW overlap AS SELECT model, dataset, system, " AX("axis.overlap") " AS overlap,"
    " CAST(" AX("axis.budget") " AS INTEGER) AS budget, verify_s_mean, throughput_tps, tau"
    " FROM v_runs WHERE part = " R("part.overlap") " ORDER BY model, dataset, system, overlap, budget;"
    "CREATE VIEW consistency AS WITH r AS (SELECT system, cost_err_median AS e, cost_bias_median AS b,"
    " row_number() OVER (PARTITION BY system ORDER BY cost_err_median) AS rn,"
    " count(*) OVER (PARTITION BY system) AS n FROM v_runs WHERE part = " R("part.main") ""
    " AND cost_err_median IS NOT NULL)"
    " SELECT system, max(n) AS runs, avg(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN e END) AS err_median,"
    " max(e) AS err_max, avg(b) AS bias_mean FROM r GROUP BY system ORDER BY system;"
    /* The regime study's runs: r's own metrics, its throughput against Lever's (v_vs_lever's
     * vs_lever, the same expression on the same runs) and against Lever without pruning. v_runs
     * is read once into r (a CTE used three times is materialised; as three views it was built
     * four times, most of the study's summary) and joined to itself. */
    "CREATE VIEW regime AS WITH r AS (SELECT * FROM v_runs WHERE part IN (" R("part.regime") ", "
    R("part.regime_map") ", " R("part.regime_lmhead") "))"
    " SELECT CASE WHEN r.part = " R("part.regime") " THEN 'systems'"
    " WHEN r.part = " R("part.regime_map") " THEN 'map' ELSE 'lmhead' END AS claims,"
    " CASE WHEN " AXP("r", "axis.npu") " IS NOT NULL THEN 'npu ' || " AXP("r", "axis.npu")
    " WHEN " AXP("r", "axis.overlap") " IS NOT NULL THEN 'overlap ' || " AXP("r", "axis.overlap")
    " WHEN " AXP("r", "axis.head") " IS NOT NULL THEN 'head ' || " AXP("r", "axis.head")
    " WHEN " AXP("r", "axis.pad") " IS NOT NULL THEN 'pad ' || " AXP("r", "axis.pad")
    " WHEN " AXP("r", "axis.matrix") " IS NOT NULL THEN 'matrix ' || " AXP("r", "axis.matrix")
    " ELSE 'default' END AS assumption,"
    " r.part, r.device, r.model, r.dataset, r.system, " AXP("r", "axis.map") " AS map,"
    " " AXP("r", "axis.lmhead") " AS lmhead, r.throughput_tps,"
    " " PAIRED("cl.ratio", "r.throughput_tps / l.throughput_tps", "l", "r") " AS vs_lever,"
    " " PAIRED("cn.ratio", "r.throughput_tps / n.throughput_tps", "n", "r") " AS tps_vs_no_prune,"
    " r.wasted_verify, r.draft_s_mean, r.lmhead_s_mean, r.io_share FROM r"
    " LEFT JOIN r l ON l.system = " R("system.reference") " AND " SAME_CONFIG("l", "r")
    " LEFT JOIN r n ON n.system = " R("system.no_prune") " AND " SAME_CONFIG("n", "r")
    RATIO_CI("cl", "r", "system.reference", "throughput_tps") RATIO_CI("cn", "r", "system.no_prune", "throughput_tps")
    " ORDER BY 1, 2, r.device, r.model, r.dataset, r.system, map, lmhead;"
    "CREATE VIEW lever_tree AS SELECT device, model, count(*) AS datasets, avg(tree_size_mean) AS tree_size,"
    " min(tree_size_mean) AS tree_size_min, max(tree_size_mean) AS tree_size_max, avg(tau) AS tau"
    " FROM v_runs WHERE part = " R("part.main") " AND system = " R("system.reference") " GROUP BY device, model ORDER BY device, model;"
    "CREATE VIEW energy AS SELECT device, system, count(*) AS configs,"
    " avg(energy_per_token_j) AS energy_per_token_j, avg(throughput_tps) AS throughput_tps"
    " FROM v_runs WHERE part = " R("part.main") " GROUP BY device, system ORDER BY device, system;"
    "CREATE VIEW sensitivity AS SELECT device, model, dataset,"
    " " AX("axis.bandwidth") " AS bandwidth,"
    " CAST(" AX("axis.bandwidth") " AS REAL) AS bandwidth_gbps,"
    " system, throughput_tps, lever_speedup FROM v_vs_lever WHERE part = " R("part.sensitivity") ""
    " ORDER BY device, model, dataset, bandwidth_gbps, system;"
    "CREATE VIEW summary AS SELECT * FROM v_summary;"
    "CREATE VIEW lever_ratios AS SELECT l.device, l.model, l.dataset,"
    " max(CASE WHEN v.system = " R("system.baseline") " THEN v.lever_speedup END) AS vs_ar_flash,"
    " max(CASE WHEN v.system = " R("system.baseline") " THEN v.lever_speedup_lo END) AS vs_ar_flash_lo,"
    " max(CASE WHEN v.system = " R("system.baseline") " THEN v.lever_speedup_hi END) AS vs_ar_flash_hi,"
    " max(CASE WHEN v.system = " R("system.tree") " THEN v.lever_speedup END) AS vs_specinfer,"
    " max(CASE WHEN v.system = " R("system.tree") " THEN v.lever_speedup_lo END) AS vs_specinfer_lo,"
    " max(CASE WHEN v.system = " R("system.tree") " THEN v.lever_speedup_hi END) AS vs_specinfer_hi,"
    " min(CASE WHEN instr(',' || " R("systems.flash") " || ',', ',' || v.system || ',') > 0"
    " THEN v.lever_speedup END) AS vs_fastest_flash,"
    " max(l.prompts) AS prompts FROM v_speedup l JOIN v_speedup v"
    " ON (v.device, v.model, v.dataset, v.axes_json, v.seed)"
    " = (l.device, l.model, l.dataset, l.axes_json, l.seed)"
    " WHERE l.system = " R("system.reference") " GROUP BY l.device, l.model, l.dataset"
    " ORDER BY l.device, l.model, l.dataset;"
    "CREATE VIEW v_metric_ci AS SELECT r.run_id, r.part, r.device, r.model, r.dataset,"
    " r.system, r.axes_json, r.seed, c.name AS metric, c.value, c.lo, c.hi, c.prompts"
    " FROM runs r JOIN metric_ci c ON c.run_id = r.run_id WHERE r.status = 'ok'"
    " ORDER BY r.part, r.device, r.model, r.dataset, r.system, r.axes_json, r.seed, c.name;";

typedef struct view_doc { const char *name, *about; } view_doc;
static const view_doc views[] = {
    {"v_runs", "one row per ok run, every metric as a column"},
    {"v_settings", "every resolved setting of every run (value, number, unit, default or not)"},
    {"v_failed", "runs that are failed or invalid, with the reason"},
    {"v_vs_lever", "every ok run beside lever and ar-flash of its configuration (all parts)"},
    {"v_speedup", "part main: each system's throughput vs lever and ar-flash"},
    {"v_summary", "per system: arithmetic and geometric mean speedup of lever over it"},
    {"fig05", "budget sweep: throughput, tau, verify time vs draft budget"},
    {"fig10", "main: throughput normalised to lever and ar-flash"},
    {"fig11", "draft policies: throughput and tau normalised to specinfer"},
    {"fig12", "pruning: lever vs lever-no-prune, wasted verification"},
    {"fig13", "mapping: draft time per draft-stage mapping"},
    {"fig14", "lmhead: output-projection time per placement"},
    {"table1", "oneplus-12: I/O share of a one-token verification (and of a 64-token tree) per model"},
    {"overlap", "Fig. 5's budget dilemma under serial and prefetch reads (the evidence for verify.overlap)"},
    {"consistency", "main: the cost model's cycle time vs the simulated one, median relative error per system"},
    {"regime", "the regime map's runs: each claim's figure columns under each open assumption changed"},
    {"lever_tree", "part main: Lever's mean tree size (its stopping rule's choice) per device and model"},
    {"energy", "energy per token by device and system (main)"},
    {"sensitivity", "lever speedup vs flash bandwidth"},
    {"throughput", "main: tokens/s per configuration, one column per system"},
    {"summary", "same as v_summary (printed by reproduce)"},
    {"v_metric_ci", "95 % interval of every run's metrics its study declares (bootstrap over prompts)"},
    {"lever_ratios", "main: Lever's speedup over ar-flash and specinfer per configuration, 95 % CI"},
    {NULL, NULL}};

const char *ls_db_view_name(int i)
{
  if (i < 0 || i >= (int)(sizeof views / sizeof *views) - 1) return NULL;
  return views[i].name;
}

int ls_db_list_views(FILE *out)
{
  for (int i = 0; views[i].name; i++) fprintf(out, "  %-12s %s\n", views[i].name, views[i].about);
  return LS_OK;
}

/* v_runs is generated from metric_names so the pivot and the list never disagree. */
static int create_v_runs(ls_db *db, int temp, ls_error *err)
{
  char sql[8192];
  size_t n = (size_t)snprintf(sql, sizeof sql,
                              "CREATE %sVIEW v_runs AS SELECT r.run_id, r.part, "
                              "r.device, r.model, r.dataset, r.system, r.axes_json, r.seed",
                              temp ? "TEMP " : "");
  /* Each metric by its key (run_id, name): one look-up a column. The pivot it replaces
   * (metrics joined, max(CASE ...) per column, grouped by run) compared every metric row with
   * every column name: building v_runs was most of what the views cost. max() over the
   * look-up keeps the pivot's value even in an input whose metrics table lacks its key and
   * repeats a row (a run's metric is otherwise one row or none). */
  for (int i = 0; metric_names[i]; i++)
    n += (size_t)snprintf(sql + n, sizeof sql - n,
                          ", (SELECT max(value) FROM metrics m WHERE m.run_id = r.run_id AND m.name = '%s') AS %s",
                          metric_names[i], metric_names[i]);
  n += (size_t)snprintf(sql + n, sizeof sql - n,
                        ", (SELECT count(*) FROM prompts p WHERE p.run_id = r.run_id) AS prompts"
                        ", (SELECT lo FROM metric_ci c WHERE c.run_id = r.run_id AND c.name ="
                        " 'throughput_tps') AS throughput_tps_lo, (SELECT hi FROM metric_ci c"
                        " WHERE c.run_id = r.run_id AND c.name = 'throughput_tps')"
                        " AS throughput_tps_hi, (SELECT lo FROM metric_ci c WHERE c.run_id ="
                        " r.run_id AND c.name = 'tau') AS tau_lo, (SELECT hi FROM metric_ci c"
                        " WHERE c.run_id = r.run_id AND c.name = 'tau') AS tau_hi"
                        " FROM runs r WHERE r.status = 'ok'"
                        " ORDER BY r.part, r.device, r.model, r.dataset, r.system,"
                        " r.axes_json, r.seed;");
  if (n >= sizeof sql) return ls_error_set(err, LS_ESTATE, "v_runs: SQL buffer too small");
  return ls_db_exec(db, sql, err);
}

/* Views are derived, not data: they are dropped and recreated on every open, so a database
 * written by an older leversim gets the current definitions. */
static int drop_views(ls_db *db, ls_error *err)
{
  int rc = LS_OK;
  for (int i = 0; rc == LS_OK && views[i].name; i++) {
    char sql[96];
    snprintf(sql, sizeof sql, "DROP VIEW IF EXISTS %s;", views[i].name);
    rc = ls_db_exec(db, sql, err);
  }
  return rc;
}

/* The systems of role systems.pivot, or none; names with characters outside [A-Za-z0-9._-]
 * are left out (they are spliced into the view's SQL). */
static int pivot_systems(ls_db *db, char (*out)[64], int max)
{
  sqlite3_stmt *st = NULL;
  int n = 0;
  if (sqlite3_prepare_v2(db->h, "SELECT value FROM roles WHERE role = 'systems.pivot'", -1, &st,
                         NULL) != SQLITE_OK)
    return 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *v = (const char *)sqlite3_column_text(st, 0);
    while (v && *v && n < max) {
      size_t len = strcspn(v, ",");
      int ok = len > 0 && len < 64;
      for (size_t i = 0; ok && i < len; i++)
        ok = isalnum((unsigned char)v[i]) || v[i] == '.' || v[i] == '_' || v[i] == '-';
      if (ok) snprintf(out[n++], 64, "%.*s", (int)len, v);
      v += len + (v[len] == ',');
    }
  }
  sqlite3_finalize(st);
  return n;
}

/* throughput: one tokens/s column per system of role systems.pivot. Its DROP and CREATE are
 * one write transaction: outside one, two processes refreshing at once (a merge and a sweep on
 * one file) could both drop, then one CREATE fails with "view throughput already exists". */
static int build_throughput(ls_db *db, int temp, ls_error *err);
static int create_throughput(ls_db *db, ls_error *err)
{
  if (!sqlite3_get_autocommit(db->h)) return build_throughput(db, 0, err); /* the caller's lock */
  int rc = ls_db_exec(db, "BEGIN IMMEDIATE", err);
  if (rc == LS_OK) rc = build_throughput(db, 0, err);
  if (rc == LS_OK) return ls_db_exec(db, "COMMIT", err);
  sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

static int build_throughput(ls_db *db, int temp, ls_error *err)
{
  char sql[4096], sys[32][64];
  int n_sys = pivot_systems(db, sys, 32);
  size_t n = (size_t)snprintf(sql, sizeof sql, "%sCREATE %sVIEW throughput AS SELECT device, "
                              "model, dataset", temp ? "" : "DROP VIEW IF EXISTS throughput;",
                              temp ? "TEMP " : "");
  for (int i = 0; i < n_sys; i++)
    n += (size_t)snprintf(sql + n, sizeof sql - n,
                          ", max(CASE WHEN system = '%s' THEN throughput_tps END) AS \"%s\"",
                          sys[i], sys[i]);
  n += (size_t)snprintf(sql + n, sizeof sql - n,
                        " FROM v_runs WHERE part = " R("part.main") " GROUP BY device, model, dataset"
                        " ORDER BY device, model, dataset;");
  if (n >= sizeof sql) return ls_error_set(err, LS_ESTATE, "throughput: SQL buffer too small");
  return ls_db_exec(db, sql, err);
}

int ls_db_roles_refresh(ls_db *db, ls_error *err) { return create_throughput(db, err); }

int ls_db_set_role(ls_db *db, const char *role, const char *value, int *kept, ls_error *err)
{
  int known = 0;
  for (int i = 0; role_docs[i].name; i++) known |= !strcmp(role_docs[i].name, role);
  if (!known) return ls_error_set(err, LS_EUSAGE, "unknown role '%s'", role);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, "INSERT INTO roles(role, value) VALUES(?1, ?2) ON CONFLICT(role)"
                         " DO NOTHING", -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "writing roles");
  sqlite3_bind_text(st, 1, role, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? LS_OK : ls_db_fail(db, err, "writing roles");
  sqlite3_finalize(st);
  if (rc) return rc;
  if (kept) {
    *kept = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT value FROM roles WHERE role = ?1", -1, &st, NULL) != SQLITE_OK)
      return ls_db_fail(db, err, "reading roles");
    sqlite3_bind_text(st, 1, role, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) *kept = strcmp((const char *)sqlite3_column_text(st, 0), value) != 0;
    sqlite3_finalize(st);
  }
  return !strcmp(role, "systems.pivot") ? create_throughput(db, err) : LS_OK;
}

int ls_db_schema_create(ls_db *db, ls_error *err)
{
  int rc = ls_db_exec(db, tables_sql, err);
  if (rc == LS_OK) rc = ls_db_exec(db, stats_tables_sql, err);
  if (rc == LS_OK) rc = drop_views(db, err);
  if (rc == LS_OK) rc = create_v_runs(db, 0, err);
  if (rc == LS_OK) rc = ls_db_exec(db, views_sql, err);
  if (rc == LS_OK) rc = create_throughput(db, err);
  return rc;
}

/* An input's views are its own code and never run (results/trust.c): leversim's are made
 * again as TEMP views, which SQLite finds before the file's objects of the same name. */
int ls_db_temp_views(ls_db *db, ls_error *err)
{
  static const char from[] = "CREATE VIEW ", to[] = "CREATE TEMP VIEW ";
  size_t k = 0;
  for (const char *p = views_sql; (p = strstr(p, from)); p += sizeof from - 1) k++;
  char *sql = malloc(sizeof views_sql + k * (sizeof to - sizeof from));
  if (!sql) return ls_error_set(err, LS_ENOMEM, "%s: out of memory", db->path);
  char *w = sql;
  for (const char *p = views_sql, *q; *p; p = q + sizeof from - 1) {
    if (!(q = strstr(p, from))) {
      strcpy(w, p);
      break;
    }
    memcpy(w, p, (size_t)(q - p));
    w += q - p;
    memcpy(w, to, sizeof to - 1);
    w += sizeof to - 1;
    *w = '\0';
  }
  int rc = create_v_runs(db, 1, err);
  if (rc == LS_OK) rc = ls_db_exec(db, sql, err);
  if (rc == LS_OK) rc = build_throughput(db, 1, err);
  free(sql);
  return rc;
}

/* ln(x): NULL for x <= 0 or NULL input, like SQLite's own math functions. */
static void fn_ln(sqlite3_context *c, int argc, sqlite3_value **v)
{
  (void)argc;
  if (sqlite3_value_type(v[0]) == SQLITE_NULL) {
    sqlite3_result_null(c);
    return;
  }
  double x = sqlite3_value_double(v[0]);
  if (!(x > 0)) {
    sqlite3_result_null(c);
    return;
  }
  sqlite3_result_double(c, log(x));
}
static void fn_exp(sqlite3_context *c, int argc, sqlite3_value **v)
{
  (void)argc;
  if (sqlite3_value_type(v[0]) == SQLITE_NULL) {
    sqlite3_result_null(c);
    return;
  }
  sqlite3_result_double(c, exp(sqlite3_value_double(v[0])));
}

int ls_db_register_math(sqlite3 *h)
{
  /* innocuous: views may call them with the schema untrusted (results/trust.c) */
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = sqlite3_create_function(h, "ln", 1, flags, NULL, fn_ln, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(h, "exp", 1, flags, NULL, fn_exp, NULL, NULL);
  return rc;
}
