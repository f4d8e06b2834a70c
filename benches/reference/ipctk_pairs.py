"""Reference timing of the mesh-based IPC barrier (ipctk, Li et al. 2020) on the `contact`
suite's hull pairs and the `contact-mesh` suite's icosphere pairs, for the comparison of our
own IPC (`contact-mesh` groups `ipc` and `ipc_hull_pairs`) and the SDRS-vs-IPC comparison of
the contact report.

Not part of the build or the tests. Usage (ipctk and numpy from PyPI, in a venv under target/):

    cargo run --release -p sdrs-benches --example export_pairs > target/sdrs-out/hull_pairs.json
    python3 -m venv target/venv-ipctk && target/venv-ipctk/bin/pip install ipctk numpy
    target/venv-ipctk/bin/python benches/reference/ipctk_pairs.py target/sdrs-out/hull_pairs.json

Each pair's two meshes form one collision mesh. For the hull pairs the activation distance
d-hat is the SDRS support distance 2s/(1-s) with s = 1 cm, so both potentials see the same
pairs; for the icospheres (radius 0.5 m, 1 cm apart) it is 2 cm, as in the `ipc` group. Per
pair it times (median over repeats) the collision-set build (broad + narrow phase) and the
evaluation of potential, gradient and Hessian, and reports how many collisions are active and
how many collisions appear between elements of the same mesh when no filter is given (a mesh
potential has no notion of bodies). Potential, gradient and Hessian are evaluated on the set
built with ipctk's connected-components filter, i.e. between the two meshes only, as ours.

The per-call cost of the whole (filtered build + potential + gradient + Hessian), averaged
over a row's pairs, is written to `benches/reference/ipctk_timings.json` under the criterion
id of the matching Rust benchmark, in nanoseconds.
"""

import datetime
import json
import platform
import statistics
import sys
import time

import ipctk
import numpy as np

S = 0.01
DHAT = 2 * S / (1 - S)
SPHERE_DHAT = 0.02
OUT = "benches/reference/ipctk_timings.json"


def edges_of(faces):
    e = np.sort(np.vstack([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    return np.unique(e, axis=0)


def median_time(f, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(a, b, dhat, repeats):
    """Per-call times (s) of the unfiltered build, the filtered build and the evaluation,
    and the collision counts with and without the filter."""
    va, vb = np.array(a["vertices"]), np.array(b["vertices"])
    fa, fb = np.array(a["triangles"]), np.array(b["triangles"]) + len(va)
    v = np.asfortranarray(np.vstack([va, vb]))
    f = np.asfortranarray(np.vstack([fa, fb]).astype(np.int32))
    e = np.asfortranarray(edges_of(f).astype(np.int32))
    mesh = ipctk.CollisionMesh(v, e, f)
    collisions = ipctk.NormalCollisions()
    build = median_time(lambda: collisions.build(mesh, v, dhat), repeats)

    filtered = ipctk.CollisionMesh(v, e, f)
    filtered.can_collide = ipctk.make_connected_components_filter(f)
    between = ipctk.NormalCollisions()
    filt = median_time(lambda: between.build(filtered, v, dhat), repeats)
    potential = ipctk.BarrierPotential(dhat, 1.0)

    def evaluate():
        potential(between, filtered, v)
        potential.gradient(between, filtered, v)
        potential.hessian(between, filtered, v)

    ev = median_time(evaluate, repeats)
    return build, filt, ev, len(between), len(collisions) - len(between)


def main(path):
    data = json.load(open(path))
    rows = {}
    print(f"icospheres, d-hat = {SPHERE_DHAT} m; medians, microseconds")
    print("| triangles per sphere | build, body filter | value+grad+Hessian | collisions |")
    print("|---|---|---|---|")
    for t, pairs in data["icospheres"].items():
        (a, b), = pairs
        _, filt, ev, count, _ = measure(a, b, SPHERE_DHAT, 20 if int(t) < 5000 else 5)
        rows[f"ipc/d̂=2cm/{t}"] = 1e9 * (filt + ev)
        print(f"| {t} | {1e6 * filt:.1f} | {1e6 * ev:.1f} | {count} |", flush=True)

    print(f"\nhull pairs, d-hat = {DHAT:.5f} m; medians per pair, microseconds")
    print("| M | triangles per hull | build, no filter | build, body filter | value+grad+Hessian (filtered) | collisions between hulls | extra same-hull collisions without the filter |")
    print("|---|---|---|---|---|---|---|")
    for m, pairs in data["hulls"].items():
        results = [measure(a, b, DHAT, 20) for a, b in pairs]
        build_t, filt_t, eval_t, counts, same = map(list, zip(*results))
        rows[f"ipc_hull_pairs/d̂=2.02cm/{m}"] = 1e9 * statistics.mean(
            f + e for f, e in zip(filt_t, eval_t)
        )
        tri = len(pairs[0][0]["triangles"])
        us = lambda xs: f"{1e6 * statistics.median(xs):.1f}"
        print(f"| {m} | {tri} | {us(build_t)} | {us(filt_t)} | {us(eval_t)} | {statistics.median(counts):.0f} | {statistics.median(same):.0f} |", flush=True)

    peer = f"ipctk {ipctk.__version__}" if hasattr(ipctk, "__version__") else "ipctk 1.x"
    with open(OUT, "w") as out:
        json.dump(
            {
                "suite": "contact-mesh",
                "peer": peer,
                "measured": datetime.date.today().isoformat(),
                "machine": f"{platform.machine()}, CPython {platform.python_version()}",
                "note": "collision set, value, gradient and Hessian; medians per pair (hull pairs: mean over the suite's pairs)",
                "unit": "ns",
                "rows": rows,
            },
            out,
            indent=2,
            ensure_ascii=False,
        )
        out.write("\n")
    print(f"\nwrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/sdrs-out/hull_pairs.json")
