"""Run under `mpirun -np 2 python3 mpi_raise.py SCENE` (tests/python/test_mpi.py): rank 1 raises before
the run that rank 0 has entered; the package's exception hook must end the whole job instead of leaving
rank 0 waiting for its peer."""
import sys

import yee

scene = yee.Scene.load(sys.argv[1])
assert yee.mpi_size() == 2, yee.mpi_size()
if yee.mpi_rank() == 1:
    raise ValueError("rank 1 gives up before the run")
yee.run(scene, tiles=(2, 1, 1), gradient=True)
print("rank 0: the run returned", flush=True)
