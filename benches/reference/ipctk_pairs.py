"""Reference timing of the mesh-based IPC barrier (ipctk, Li et al. 2020) on the `contact`
suite's hull pairs, for the SDRS-vs-IPC comparison of the contact report.

Not part of the build or the tests. Usage (ipctk and numpy from PyPI):

    cargo run --release -p sdrs-benches --example export_pairs > target/sdrs-out/hull_pairs.json
    python3 benches/reference/ipctk_pairs.py target/sdrs-out/hull_pairs.json

Each pair's two triangulated hulls form one collision mesh. The activation distance d-hat is
the SDRS support distance 2s/(1-s) with s = 1 cm, so both potentials see the same pairs.
Per pair it times (median over repeats) the collision-set build (broad + narrow phase) and the
evaluation of potential, gradient and Hessian, and reports how many collisions are active and
how many collisions appear between elements of the same hull when no filter is given (a mesh
potential has no notion of bodies). Potential, gradient and Hessian are evaluated on the set
built with ipctk's connected-components filter, i.e. between the two hulls only, as SDRS.
"""

import json
import statistics
import sys
import time

import ipctk
import numpy as np

S = 0.01
DHAT = 2 * S / (1 - S)


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


def main(path):
    groups = json.load(open(path))
    potential = ipctk.BarrierPotential(DHAT, 1.0)
    print(f"d-hat = {DHAT:.5f} m; medians per pair, microseconds")
    print("| M | triangles per hull | build, no filter | build, body filter | value+grad+Hessian (filtered) | collisions between hulls | extra same-hull collisions without the filter |")
    print("|---|---|---|---|---|---|---|")
    for m, pairs in groups.items():
        build_t, filt_t, eval_t, counts, same = [], [], [], [], []
        for a, b in pairs:
            va, vb = np.array(a["vertices"]), np.array(b["vertices"])
            fa, fb = np.array(a["triangles"]), np.array(b["triangles"]) + len(va)
            v = np.asfortranarray(np.vstack([va, vb]))
            f = np.asfortranarray(np.vstack([fa, fb]).astype(np.int32))
            e = np.asfortranarray(edges_of(f).astype(np.int32))
            mesh = ipctk.CollisionMesh(v, e, f)
            collisions = ipctk.NormalCollisions()
            build_t.append(median_time(lambda: collisions.build(mesh, v, DHAT), 20))

            filtered = ipctk.CollisionMesh(v, e, f)
            filtered.can_collide = ipctk.make_connected_components_filter(f)
            between = ipctk.NormalCollisions()
            filt_t.append(median_time(lambda: between.build(filtered, v, DHAT), 20))

            def evaluate():
                potential(between, filtered, v)
                potential.gradient(between, filtered, v)
                potential.hessian(between, filtered, v)

            eval_t.append(median_time(evaluate, 20))
            counts.append(len(between))
            same.append(len(collisions) - len(between))
        tri = len(pairs[0][0]["triangles"])
        us = lambda xs: f"{1e6 * statistics.median(xs):.1f}"
        print(f"| {m} | {tri} | {us(build_t)} | {us(filt_t)} | {us(eval_t)} | {statistics.median(counts):.0f} | {statistics.median(same):.0f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/sdrs-out/hull_pairs.json")
