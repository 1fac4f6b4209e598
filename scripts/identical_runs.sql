-- Runs of one results database whose per-prompt results are identical although their resolved
-- configurations (runs.config_json, the identity reuse compares) differ: evidence for settings
-- that could not affect a run (docs/PERFORMANCE.md, "Issue 33, session 15"). Since session 17 a
-- padding twin (device.npu.pad_small true, otherwise an earlier run's configuration) is recorded
-- as that run's simulation when the NPU reports that padding decided no call
-- (docs/EXPERIMENTS.md, "Padding twins"); such copies still show here, as do the twins whose
-- report said padding decided a call but whose results came out the same anyway.
--   sqlite3 results/regime.db < scripts/identical_runs.sql
-- Prints the number of runs, of configurations and of distinct results, then per system,
-- device and case the configurations whose results an earlier configuration already had.
CREATE TEMP TABLE result_key AS
SELECT r.config_json, r.system, r.device, r.axes_json,
       (SELECT group_concat(p.prompt || ':' || quote(tokens) || quote(cycles) || quote(tau_sum) ||
                            quote(decode_s) || quote(ttft_s) || quote(draft_s) || quote(draft_work_s) ||
                            quote(verify_s) || quote(lmhead_s) || quote(tree_nodes) || quote(verify_tok) ||
                            quote(io_wait_s) || quote(compute_s) || quote(waste_s) || quote(token_layers) ||
                            quote(waste_layers) || quote(npu_busy_s) || quote(cpu_busy_s) ||
                            quote(flash_busy_s) || quote(energy_j), ';')
          FROM (SELECT * FROM prompts p WHERE p.run_id = r.run_id ORDER BY p.prompt) p) AS k
  FROM runs r WHERE r.status = 'ok';
CREATE TEMP TABLE config_key AS
SELECT config_json, min(k) AS k, min(system) AS system, min(device) AS device, min(axes_json) AS axes
  FROM result_key GROUP BY config_json;
SELECT 'runs', count(*), 'configurations', count(DISTINCT config_json), 'distinct results',
       count(DISTINCT k) FROM result_key;
SELECT system, device, axes, count(*) AS repeats FROM config_key x
 WHERE EXISTS (SELECT 1 FROM config_key y WHERE y.k = x.k AND y.config_json < x.config_json)
 GROUP BY system, device, axes ORDER BY system, device, axes;
