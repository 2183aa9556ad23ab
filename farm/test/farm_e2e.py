#!/usr/bin/env python3
"""End-to-end test of the task farms (docs/taskfarm.md) on test-programs/farm-1d or farm-2d.

usage: farm_e2e.py --build BUILD --source SRC --work WORK --program farm-1d|farm-2d|...

1. `make CC=BUILD/bin/mpiete-cc` and `make` (mpicc), or for a Fortran farm (f77-farm, f90-farm:
   the comment directives C$MPIETE TASK / !$mpiete task) `make FC=BUILD/bin/mpiete-fc` and
   `make` (mpif90): the native, instrumented and trace-probe builds print the same at 4 ranks
   (the marker vanishes outside the probes, and the probes compute what the program computes).
2. probe-program --task-set writes the task set (traces/tasks.yaml: the grid, nothing measured), then
   probe-compute --tasks-subset C --tasks-grid traces/tasks.yaml: machine.tasks.yaml lists
   every task as a grid and exactly the subset's tasks as measured (both ends of every
   parameter's range); the timing probe's run ends (the master got a result for every task).
3. estimate (text, yaml, json) says the farm was re-simulated, with the counts of measured and
   interpolated tasks and a worker table whose predicted counts add up to the task count.
4. probe-program --task-set --task-shape C times exactly the tasks on the centred lattice of
   stride C (the shape; --task-shape-lattice cubic: the multiples of C only), and
   probe-compute placed by it measures as many values per parameter as step 2, on a grid
   with both ends (one parameter, or --tasks-lattice), or as many points as that grid holds,
   the shape's costliest task among them (two or more parameters).
5. estimate from the shaped traces joins the shape's tasks machine A did not measure (their
   count in the text and JSON reports).
6. probe-compute --tasks-every 2 --tasks-reference (a machine probed for r_s alone) measures
   the fewest of machine A's tasks that hold 1/2^D of A's time (at least 0.1 s); a cluster of
   both gives the last worker that r_s.
Exits 1 with the failing step's message.
"""
import argparse
import itertools
import json
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from farm_util import fail, run, work_env  # noqa: E402

CASES = {
    # program: (arguments, --tasks-subset, grid, measured parameters, language: "c" builds with
    # CC=mpiete-cc, "fortran" with FC=mpiete-fc). farm-1d: ceil(48 / 8) = 6 of 0..47,
    # k * 47 / 5 rounded; farm-2d: 3 of 0..5 (0, 2.5 rounded up, 5), 2 of 0..3.
    "farm-1d": (["48", "20000"], 8, [[0, 47, 1]], [[0], [9], [19], [28], [38], [47]], "c"),
    "farm-2d": (["6", "4", "4", "200"], 2, [[0, 5, 1], [0, 3, 1]],
                [[i, j] for i in (0, 3, 5) for j in (0, 3)], "c"),
    # farm-2d whose parameters are elements 1 and 2 of the work message (task number, i, j).
    "farm-2d-message": (["6", "4", "4", "200"], 2, [[0, 5, 1], [0, 3, 1]],
                        [[i, j] for i in (0, 3, 5) for j in (0, 3)], "c"),
    # f77-farm: farm-2d's tiles in fixed-form Fortran 77, 6 x 5 tiles of 8 x 8 points, 500
    # iterations at most; C$MPIETE TASK FROM MESSAGE in tile.f, the parameters the elements
    # C$MPIETE TASK MESSAGE(MSG(1), MSG(2)) names in main.f, 1-based. ceil(6 / 2) = 3
    # of 1..6: indices k * 5 / 2 = 0, 2.5 rounded up to 3, 5, so tiles 1, 4, 6; ceil(5 / 2) = 3
    # of 1..5: indices k * 4 / 2 = 0, 2, 4, so 1, 3, 5. 9 of the 30 tasks measured.
    "f77-farm": (["6", "5", "8", "500"], 2, [[1, 6, 1], [1, 5, 1]],
                 [[i, j] for i in (1, 4, 6) for j in (1, 3, 5)], "fortran"),
    # f90-farm: farm-1d's costs in free-form Fortran 90, 40 tasks of base 20000; !$mpiete
    # task(i) in the module farm_costs, tasks 1..40. ceil(40 / 8) = 5 of 1..40: indices
    # k * 39 / 4 = 0, 9.75, 19.5, 29.25, 39 rounded (halves up) to 0, 10, 20, 29, 39, so tasks
    # 1, 11, 21, 30, 40.
    "f90-farm": (["40", "20000"], 8, [[1, 40, 1]], [[1], [11], [21], [30], [40]], "fortran"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--program", required=True, choices=sorted(CASES))
    a = ap.parse_args()
    args, stride, grid, measured, language = CASES[a.program]
    src = os.path.join(a.source, "test-programs", a.program)
    work = os.path.abspath(a.work)
    env = work_env(a.build, work)
    cc, ref = os.path.join(work, "cc"), os.path.join(work, "ref")
    if language == "fortran":  # the directives are comments: no header to find
        run(["make", "FC=mpiete-fc", "O=" + cc], src, env, "make FC=mpiete-fc")
        run(["make", "O=" + ref], src, env, "make (mpif90)")
    else:
        run(["make", "CC=mpiete-cc", "O=" + cc,
             "MPIETE_INCLUDE=" + os.path.join(a.source, "abi", "include")],
            src, env, "make CC=mpiete-cc")
        run(["make", "O=" + ref, "MPIETE_INCLUDE=" + os.path.join(a.source, "abi", "include")],
            src, env, "make (mpicc)")
    app = a.program
    outs = {}
    for name, exe in [("native", os.path.join(ref, app)), ("instrumented", os.path.join(cc, app)),
                      ("trace probe", os.path.join(cc, app + ".trace"))]:
        e = dict(env, MPIETE_OUTDIR=os.path.join(work, "out-" + name.replace(" ", "-")))
        outs[name] = run(["mpirun", "-np", "4", exe] + args, work, e, name).stdout
    if len(set(outs.values())) != 1 or not outs["native"]:
        fail("the outputs differ:\n" + "\n".join(f"--- {k}\n{v}" for k, v in outs.items()))

    mpiete = os.path.join(a.build, "bin", "mpiete")
    run([mpiete, "probe-program", "-o", "traces", "--task-set", "-np", "4",
         os.path.join(cc, app + ".trace")] + args,
        work, env, "probe-program")
    task_set = yaml.safe_load(open(os.path.join(work, "traces", "tasks.yaml")))
    if task_set.get("grid") != grid or task_set.get("measured"):
        fail(f"traces/tasks.yaml: {task_set}")
    if any(f.endswith(".tasks") for f in os.listdir(os.path.join(work, "traces"))):
        fail("probe-program left the ranks' task files in traces/")
    p = run([mpiete, "probe-compute", "-o", "machine.yaml", "--tasks-subset", str(stride),
             "--tasks-grid", os.path.join("traces", "tasks.yaml"), "-np", "4",
             os.path.join(cc, app + ".timing")] + args, work, env, "probe-compute")
    tasks = yaml.safe_load(open(os.path.join(work, "machine.tasks.yaml")))
    ntasks = 1
    for g in grid:
        ntasks *= (g[1] - g[0]) // g[2] + 1
    if tasks["format"] != "mpiete-tasks" or tasks["stride"] != stride or tasks["tasks"] != ntasks:
        fail(f"machine.tasks.yaml: {tasks}")
    if tasks["grid"] != grid or [row[:-1] for row in tasks["measured"]] != measured:
        fail(f"machine.tasks.yaml: grid {tasks['grid']}, measured {tasks['measured']}")
    if any(float(row[-1]) <= 0 for row in tasks["measured"]):  # yaml reads 3e-06 as text
        fail("a measured task took no time")

    # Two timing runs (--repeat 2): the same tasks, each the median (mean) of its two times.
    run([mpiete, "probe-compute", "-o", "machine-r2.yaml", "--repeat", "2", "--tasks-subset",
         str(stride), "--tasks-grid", os.path.join("traces", "tasks.yaml"), "-np", "4",
         os.path.join(cc, app + ".timing")] + args, work, env, "probe-compute --repeat 2")
    twice = yaml.safe_load(open(os.path.join(work, "machine-r2.tasks.yaml")))
    if [row[:-1] for row in twice["measured"]] != measured or \
            any(float(row[-1]) <= 0 for row in twice["measured"]):
        fail(f"machine-r2.tasks.yaml: measured {twice['measured']}")
    if yaml.safe_load(open(os.path.join(work, "machine-r2.yaml")))["provenance"].get(
            "repeats") != 2:
        fail("machine-r2.yaml does not record repeats: 2")

    run([mpiete, "probe-comm", "-o", "network.yaml", "--max-size", "4KiB"], work, env, "probe-comm")
    base = [mpiete, "estimate", "--program", "traces", "--machine", "machine.yaml", "--network",
            "network.yaml"]
    text = run(base, work, env, "estimate").stdout
    head = (f"task farm: re-simulated (seed 000): master rank 0, 3 workers, {ntasks} tasks "
            f"({len(measured)} measured, {ntasks - len(measured)} interpolated)")
    if head not in text:
        fail("the text report lacks '" + head + "':\n" + text)
    y = yaml.safe_load(run(base + ["--format", "yaml"], work, env, "estimate yaml").stdout)
    j = json.loads(run(base + ["--format", "json"], work, env, "estimate json").stdout)
    for name, doc in (("yaml", y), ("json", j)):
        farm = doc.get("task_farm")
        if not farm or not farm["resimulated"] or farm["tasks"] != ntasks:
            fail(f"the {name} report's task_farm: {farm}")
        if sum(w["predicted_tasks"] for w in farm["workers"]) != ntasks or \
                sum(w["traced_tasks"] for w in farm["workers"]) != ntasks:
            fail(f"the {name} report's workers do not add up to {ntasks} tasks: {farm}")
        if abs(doc["predicted_seconds"] - y["predicted_seconds"]) > 1e-9:
            fail("the yaml and json predictions differ")
        if farm["interpolation"] != "grid":  # seed 000's subset is a grid
            fail(f"the {name} report's interpolation: {farm['interpolation']}, expected grid")
        # The farm's work: the measured tasks' times and every other task's interpolation,
        # which lies between the smallest and the largest measured time (seed 000's equation
        # 1 weighs measured corners; off the grid it extends the nearest flat).
        times = [float(row[-1]) for row in tasks["measured"]]
        seconds = farm["task_seconds"]
        if not (sum(times) - 1e-6 <= seconds and min(times) * ntasks - 1e-6 <= seconds <=
                max(times) * ntasks + 1e-6):
            fail(f"the {name} report's task_seconds {seconds}: measured {len(times)} tasks of "
                 f"{min(times)}-{max(times)} s, sum {sum(times)}, {ntasks} tasks")
    if "  work: " not in text or "s of tasks on the reference machine" not in text:
        fail("the text report lacks the farm's work:\n" + text)

    # 4. The shape (--task-shape C): the trace probe times exactly the tasks on the centred
    # lattice (every parameter a multiple of C, or every parameter C/2 more than one), or with
    # --task-shape-lattice cubic the multiples only; probe-compute then measures as many values
    # per axis as before, both ends among them, the others among the shape's values or in the
    # gaps between them.
    def lattice(offset):
        return set(itertools.product(*[[v for v in range(g[0], g[1] + 1, g[2])
                                         if v % stride == offset] for g in grid]))
    for name, extra, want in (("cubic", ["--task-shape-lattice", "cubic"], lattice(0)),
                              ("shaped", [], lattice(0) | lattice(stride // 2))):
        run([mpiete, "probe-program", "-o", name, "--task-set", "--task-shape", str(stride)] +
            extra + ["-np", "4", os.path.join(cc, app + ".trace")] + args, work, env,
            f"probe-program --task-shape ({name})")
        shaped = yaml.safe_load(open(os.path.join(work, name, "tasks.yaml")))
        rows = [tuple(row[:-1]) for row in shaped.get("measured") or []]
        if shaped.get("grid") != grid or sorted(rows) != sorted(want):
            fail(f"{name}/tasks.yaml: grid {shaped.get('grid')}, measured "
                 f"{shaped.get('measured')}, expected {sorted(want)}")
        if any(float(row[-1]) <= 0 for row in shaped["measured"]):
            fail(f"a task of the {name} shape took no time")
    def probe_shaped(output, extra):
        run([mpiete, "probe-compute", "-o", output + ".yaml", "--tasks-subset", str(stride),
             "--tasks-grid", os.path.join("shaped", "tasks.yaml")] + extra +
            ["-np", "4", os.path.join(cc, app + ".timing")] + args, work, env,
            f"probe-compute ({output})")
        placed = yaml.safe_load(open(os.path.join(work, output + ".tasks.yaml")))
        return [tuple(row[:-1]) for row in placed["measured"]]

    def check_lattice(rows, output):
        axes = [sorted({r[k] for r in rows}) for k in range(len(grid))]
        even = [sorted({m[k] for m in measured}) for k in range(len(grid))]
        if len(rows) != len(measured) or sorted(rows) != sorted(itertools.product(*axes)) or \
                any(len(a) != len(e) or a[0] != g[0] or a[-1] != g[1]
                    for a, e, g in zip(axes, even, grid)):
            fail(f"{output}.tasks.yaml: measured {rows}, expected {len(measured)} "
                 f"tasks on a grid with both ends, as many values per axis as {even}")

    shape_times = {tuple(r[:-1]): float(r[-1]) for r in shaped["measured"]}
    rows = probe_shaped("shaped", [])
    if len(grid) == 1:
        check_lattice(rows, "shaped")
    else:
        # Two or more parameters: points, as many as the lattice holds, the shape's costliest
        # task among them (the scale rests on it), the box's corners when they are at most
        # half of them, the rest where the shape did not measure; --tasks-lattice: the values.
        corners = set(itertools.product(*[(g[0], g[1]) for g in grid]))
        costliest = max(shape_times, key=shape_times.get)
        inside = all(g[0] <= r[k] <= g[1] for r in rows for k, g in enumerate(grid))
        others = [r for r in rows if r in shape_times and r != costliest]
        if (len(rows) != len(measured) or len(set(rows)) != len(rows) or not inside or
                costliest not in rows or
                (2 * len(corners) <= len(measured) and
                 not (corners - set(shape_times)) <= set(rows)) or
                len(others) >= len(measured) // 4 + 1):
            fail(f"shaped.tasks.yaml: measured {rows}, expected {len(measured)} points with the "
                 f"shape's costliest {costliest} among them (shape: {shape_times})")
        check_lattice(probe_shaped("lattice", ["--tasks-lattice"]), "lattice")
    # 5. The shape as data: estimate from the shaped traces joins the shape's tasks machine A
    # did not measure, scaled by the tasks both measured.
    common = sum(t for p, t in shape_times.items() if p in set(rows))
    joined = len(set(shape_times) - set(rows))
    if common < 0.05 * sum(shape_times.values()):  # the scale would rest on clock overhead
        joined = 0
    shaped_base = [mpiete, "estimate", "--program", "shaped", "--machine", "shaped.yaml",
                   "--network", "network.yaml"]
    text = run(shaped_base, work, env, "estimate (shaped)").stdout
    head = (f"({len(rows)} measured, {joined} from the trace probe's shape x" if joined else
            f"({len(rows)} measured, {ntasks - len(rows)} interpolated)")
    tail = f", {ntasks - len(rows) - joined} interpolated)"
    if head not in text or tail not in text:
        fail(f"the text report lacks '{head}...{tail}':\n" + text)
    farm = json.loads(run(shaped_base + ["--format", "json"], work, env,
                          "estimate json (shaped)").stdout)["task_farm"]
    if farm["shape_tasks"] != joined or (farm["shape_scale"] > 0) != (joined > 0):
        fail(f"the json report's task_farm: {farm}")
    # Points, or a grid joined by the shape's lattice, are no grid: in two or more parameters
    # they are interpolated over their simplices; along one parameter the grid rule is linear.
    want = "simplices" if len(grid) > 1 else "grid"
    if farm["interpolation"] != want or \
            ("Delaunay simplices" in text) != (want == "simplices"):
        fail(f"the report's interpolation: {farm['interpolation']}, expected {want}:\n{text}")

    # 6. A machine probed for its speed ratio alone (--tasks-every 2 --tasks-reference): the
    # fewest of the tasks machine A measured that hold 1/2^D of A's measured time and at least
    # 0.1 s of it (these tasks take microseconds: all of them), the last the cheapest that
    # completes it; a cluster of A's and that machine's nodes gives the last
    # worker r_s = its time over A's on those tasks.
    a_times = {tuple(r[:-1]): float(r[-1])
               for r in yaml.safe_load(open(os.path.join(work, "shaped.tasks.yaml")))["measured"]}
    total = sum(t for t in a_times.values() if t > 0)
    budget = max(total / 2 ** len(grid), min(total, 0.1))  # at least 0.1 s, or all of them
    left = sorted(((t, p) for p, t in a_times.items() if t > 0), key=lambda x: -x[0])
    want, missing = [], budget
    while missing > 0 and left:
        if left[0][0] < missing:
            missing -= left[0][0]
            want.append(left.pop(0)[1])
        else:
            want.append(min((x for x in left if x[0] >= missing), key=lambda x: x[0])[1])
            break
    b_rows = probe_shaped("ratio", ["--tasks-every", "2", "--tasks-reference", "shaped.yaml"])
    if sorted(b_rows) != sorted(want):
        fail(f"ratio.tasks.yaml: measured {b_rows}, expected {sorted(want)}: the fewest of "
             f"machine A's {a_times} that hold {budget} s")
    b_times = {tuple(r[:-1]): float(r[-1])
               for r in yaml.safe_load(open(os.path.join(work, "ratio.tasks.yaml")))["measured"]}
    with open(os.path.join(work, "cluster.yaml"), "w") as f:
        f.write("format: mpiete-cluster\nversion: 1\nranks_per_node: 1\nnodes:\n"
                "  - {count: 3, machine: shaped.yaml}\n  - {count: 1, machine: ratio.yaml}\n")
    farm = json.loads(run(shaped_base + ["--cluster", "cluster.yaml", "--format", "json"], work,
                          env, "estimate --cluster (ratio)").stdout)["task_farm"]
    r_s = sum(b_times.values()) / sum(a_times[p] for p in b_times)
    factors = {w["rank"]: w["time_factor"] for w in farm["workers"]}
    if abs(factors[3] - r_s) > 1e-4 * r_s or any(abs(factors[r] - 1) > 1e-9 for r in (1, 2)):
        fail(f"r_s: {farm['workers']}, expected {r_s} for rank 3")
    print("PASS")


main()
