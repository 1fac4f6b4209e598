#!/usr/bin/env python3
# Refits the top-1 confidence of the EAGLE-3 acceptance processes (workloads/datasets/*.yaml,
# blocks *-eagle3) so that EAGLE-2's tree reaches the published accepted lengths (docs/CALIBRATION.md
# section 1): a bisection per dataset and process on one shift of both regimes' logit means.
# Run from the repository root after `make`; rewrites the dataset files in place.
import json, re, subprocess, sys
targets_llama = {'mt-bench': 6.13, 'humaneval': 6.74, 'gsm8k': 6.23, 'mbpp': 6.74}
mean_l = sum(targets_llama.values()) / 4
procs = {
  'llama3-eagle3': ('llama-3.1-8b', lambda d: targets_llama[d], ['draft.depth=8']),
  'qwen3-think-eagle3': ('qwen3-8b', lambda d: (3.72 + 3.49) / 2 * targets_llama[d] / mean_l, ['draft.depth=5']),
  'qwen3-nothink-eagle3': ('qwen3-4b', lambda d: 3.03 * targets_llama[d] / mean_l, ['draft.depth=5']),
}
def tau(model, ds, extra):
    cmd = ['./build/leversim', 'run', '--device', 'oneplus-12', '--model', model, '--dataset', ds, '--system', 'eagle2',
           '--set', 'draft.total_tokens=60', '--set', 'draft.topk=10', '--prompts', '32', '--tokens', '128', '--seed', '11', '--json']
    for e in extra: cmd += ['--set', e]
    out = subprocess.run(cmd, capture_output=True, text=True)
    return json.loads(out.stdout)['metrics']['tau']
def block_span(s, proc):
    i = s.index('\n  %s:\n' % proc) + 1
    m = re.search(r'\n  [a-z0-9-]+:\n', s[i + 3:])
    j = i + 3 + m.start() + 1 if m else len(s)
    return i, j
def set_shift(path, proc, base, delta):
    s = open(path).read()
    i, j = block_span(s, proc)
    blk = s[i:j]
    vals = iter(base)
    blk = re.sub(r'top1_logit_mean: -?[0-9.]+(\s+)# [^\n]*', lambda m: 'top1_logit_mean: %.2f%s# calibrated: EAGLE-3 tau (docs/CALIBRATION.md)' % (next(vals) + delta, m.group(1)), blk)
    open(path, 'w').write(s[:i] + blk + s[j:])
def base_of(path, proc):
    s = open(path).read(); i, j = block_span(s, proc)
    return [float(x) for x in re.findall(r'top1_logit_mean: (-?[0-9.]+)', s[i:j])]
for proc, (model, tgt, extra) in procs.items():
    for ds in ['mt-bench', 'humaneval', 'gsm8k', 'mbpp']:
        path = 'workloads/datasets/%s.yaml' % ds
        base = base_of(path, proc)
        want = tgt(ds)
        lo, hi = -1.5, 1.5
        for it in range(12):
            mid = (lo + hi) / 2
            set_shift(path, proc, base, mid)
            t = tau(model, ds, extra)
            if t < want: lo = mid
            else: hi = mid
        set_shift(path, proc, base, round((lo + hi) / 2, 2))
        print(proc, ds, 'target %.2f got %.3f shift %.2f' % (want, tau(model, ds, extra), (lo + hi) / 2), flush=True)
