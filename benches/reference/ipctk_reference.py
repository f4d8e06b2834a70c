"""Reference numbers from ipctk (PyPI, the IPC Toolkit's Python bindings) for the Rust IPC
tests in crates/sdrs-contact/tests/ipc.rs: squared distances, their gradient and Hessian
norms and distance types for point-triangle and edge-edge configurations covering every
type, the edge-edge mollifier, and the clamped log barrier. Not part of the build; rerun
with `python3 benches/reference/ipctk_reference.py` and paste its output into the test.
"""

import ipctk
import numpy as np

PT = [
    # p, t0, t1, t2 (one configuration per Voronoi region)
    ([0.2, 0.3, 0.7], [0, 0, 0], [1, 0, 0], [0, 1, 0]),       # face
    ([-0.4, -0.3, 0.2], [0, 0, 0], [1, 0, 0], [0, 1, 0]),     # vertex 0
    ([1.5, -0.2, 0.3], [0, 0, 0], [1, 0, 0], [0, 1, 0]),      # vertex 1
    ([-0.1, 1.6, -0.4], [0, 0, 0], [1, 0, 0], [0, 1, 0]),     # vertex 2
    ([0.5, -0.5, 0.25], [0, 0, 0], [1, 0, 0], [0, 1, 0]),     # edge 0 (t0 t1)
    ([0.8, 0.8, -0.3], [0, 0, 0], [1, 0, 0], [0, 1, 0]),      # edge 1 (t1 t2)
    ([-0.6, 0.4, 0.1], [0, 0, 0], [1, 0, 0], [0, 1, 0]),      # edge 2 (t2 t0)
    ([0.31, 0.17, -0.05], [0.1, -0.2, 0.3], [1.2, 0.1, -0.1], [-0.3, 0.9, 0.2]),
]
EE = [
    # ea0, ea1, eb0, eb1
    ([0, 0, 0], [1, 0, 0], [0.5, -0.5, 0.3], [0.5, 0.5, 0.3]),     # interior-interior
    ([0, 0, 0], [1, 0, 0], [-0.5, -0.5, 0.3], [-0.5, 0.5, 0.3]),   # a0 - b interior
    ([0, 0, 0], [1, 0, 0], [1.5, -0.5, 0.3], [1.5, 0.5, 0.3]),     # a1 - b interior
    ([0, 0, 0], [1, 0, 0], [0.5, 0.2, 0.3], [0.5, 1.2, 0.3]),      # a interior - b0
    ([0, 0, 0], [1, 0, 0], [0.5, -1.2, 0.3], [0.5, -0.2, 0.3]),    # a interior - b1
    ([0, 0, 0], [1, 0, 0], [-0.5, 0.2, 0.3], [-0.5, 1.2, 0.3]),    # a0 - b0
    ([0, 0, 0], [1, 0, 0], [1.2, 0.3, 0.3], [1.7, 1.2, 0.2]),      # a1 - b0
    ([0.1, 0.2, 0.0], [1.1, -0.1, 0.2], [0.3, 0.9, 0.4], [0.8, -0.6, 0.5]),
    ([0, 0, 0], [1, 0, 0], [0.2, 0.1, 0.05], [0.9, 0.1001, 0.05]),  # nearly parallel
]


def fmt(x):
    return repr(float(x))


def vec(v):
    return "[" + ", ".join(repr(float(x)) for x in v) + "]"


def main():
    print("// point-triangle: (p, t0, t1, t2, type, d², |∇d²|, |∇²d²|_F)")
    for p, t0, t1, t2 in PT:
        p, t0, t1, t2 = map(lambda v: np.array(v, dtype=float), (p, t0, t1, t2))
        t = ipctk.point_triangle_distance_type(p, t0, t1, t2)
        d = ipctk.point_triangle_distance(p, t0, t1, t2)
        g = ipctk.point_triangle_distance_gradient(p, t0, t1, t2)
        h = ipctk.point_triangle_distance_hessian(p, t0, t1, t2)
        print(f"({vec(p)}, {vec(t0)}, {vec(t1)}, {vec(t2)}, \"{t.name}\", {fmt(d)}, {fmt(np.linalg.norm(g))}, {fmt(np.linalg.norm(h))}),")
    print("// edge-edge: (ea0, ea1, eb0, eb1, type, d², |∇d²|, |∇²d²|_F, ε_x, m, |∇m|, |∇²m|_F)")
    for a0, a1, b0, b1 in EE:
        a0, a1, b0, b1 = map(lambda v: np.array(v, dtype=float), (a0, a1, b0, b1))
        t = ipctk.edge_edge_distance_type(a0, a1, b0, b1)
        d = ipctk.edge_edge_distance(a0, a1, b0, b1)
        g = ipctk.edge_edge_distance_gradient(a0, a1, b0, b1)
        h = ipctk.edge_edge_distance_hessian(a0, a1, b0, b1)
        eps = ipctk.edge_edge_mollifier_threshold(a0, a1, b0, b1)
        m = ipctk.edge_edge_mollifier(a0, a1, b0, b1, eps)
        mg = ipctk.edge_edge_mollifier_gradient(a0, a1, b0, b1, eps)
        mh = ipctk.edge_edge_mollifier_hessian(a0, a1, b0, b1, eps)
        print(f"({vec(a0)}, {vec(a1)}, {vec(b0)}, {vec(b1)}, \"{t.name}\", {fmt(d)}, {fmt(np.linalg.norm(g))}, {fmt(np.linalg.norm(h))}, {fmt(eps)}, {fmt(m)}, {fmt(np.linalg.norm(mg))}, {fmt(np.linalg.norm(mh))}),")
    print("// barrier: (d, d̂, b, b', b'')")
    for d, dhat in [(1e-4, 1e-3), (5e-4, 1e-3), (9.9e-4, 1e-3), (0.02, 0.0404)]:
        print(f"({d}, {dhat}, {fmt(ipctk.barrier(d, dhat))}, {fmt(ipctk.barrier_first_derivative(d, dhat))}, {fmt(ipctk.barrier_second_derivative(d, dhat))}),")


if __name__ == "__main__":
    main()
