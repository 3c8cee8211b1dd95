"""Run under `mpirun -np 2 python3 mpi_run.py SCENE RUN.h5 SESSION.h5` (tests/python/test_mpi.py):
one rank per tile from Python, a value-and-grad run and a session evaluation, rank 0 writing both."""
import sys

import numpy as np

import yee

scene_path, run_out, session_out = sys.argv[1:4]
scene = yee.Scene.load(scene_path)
assert yee.mpi_size() == 2, yee.mpi_size()
rank = yee.mpi_rank()

r = yee.run(scene, tiles=(2, 1, 1), gradient=True)
if rank == 0:
    assert r.completed, r.status
    r.write(run_out, scene)

x = np.linspace(0.1, 0.9, 20)
with yee.Session(scene, tiles=(2, 1, 1)) as session:
    if rank == 0:
        e = session.evaluate(x)
        assert e.completed, e.status
        e.write(session_out, scene)
    else:
        session.serve()
print(f"rank {rank}: ok")
