"""Type stubs of the yee package (the extension yee._yee and its Python layer)."""

from typing import Any, Callable, ContextManager, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
has_mpi: bool

class SceneError(ValueError):
    """Bad input (scene or options); the message is one line naming the field."""
    field: str

class DeviceMemoryError(SceneError):
    """A device's planned peak exceeds its capacity (raised before allocating)."""

class RunError(RuntimeError):
    field: str

Tiles = Tuple[int, int, int]
Latent = Mapping[str, npt.ArrayLike]
Progress = Callable[["Report"], Optional[bool]]

class Scene:
    def __init__(self) -> None: ...
    @staticmethod
    def load(path: str, validate: bool = True) -> Scene: ...
    @staticmethod
    def from_json(text: str, base_dir: str = ".", validate: bool = True) -> Scene: ...
    @staticmethod
    def from_dict(d: Mapping[str, Any], base_dir: str = ".", validate: bool = True) -> Scene: ...
    def to_json(self, inline_arrays: bool = False) -> str: ...
    def to_dict(self, inline_arrays: bool = False) -> Dict[str, Any]: ...
    def save(self, path: str) -> None: ...
    def validate(self) -> None: ...
    def get(self, path: str) -> Any: ...
    def set(self, path: str, value: Any) -> None: ...
    def add(self, section: str, item: Mapping[str, Any], name: Optional[str] = None) -> None: ...
    def remove(self, path: str) -> None: ...
    def editing(self) -> ContextManager[Scene]: ...
    def copy(self) -> Scene: ...
    @property
    def hash(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def base_dir(self) -> str: ...
    @property
    def grid_cells(self) -> List[int]: ...
    @property
    def steps(self) -> int: ...
    @property
    def dt_fs(self) -> float: ...
    @property
    def design_names(self) -> List[str]: ...
    def design_shape(self, name: str) -> Tuple[int, int, int]: ...
    def design_box(self, name: str) -> Tuple[Tuple[float, float, float], Tuple[float, float, float]]: ...
    def latent(self, name: str) -> npt.NDArray[np.float64]: ...
    def set_latent(self, name: str, values: npt.ArrayLike) -> None: ...
    def density(self, name: str) -> npt.NDArray[np.float64]: ...

class DetectorResult:
    name: str
    type: str
    attrs: Dict[str, float]
    @property
    def arrays(self) -> Dict[str, npt.NDArray[np.float64]]: ...
    def __getitem__(self, name: str) -> npt.NDArray[np.float64]: ...
    def keys(self) -> List[str]: ...

class DeviceSummary:
    name: str
    capacity: int
    driver_bytes: int
    @property
    def tile(self) -> Tuple[Tuple[int, int, int], Tuple[int, int, int]]: ...
    @property
    def memory_peak(self) -> Dict[str, int]: ...
    @property
    def memory_current(self) -> Dict[str, int]: ...
    @property
    def peak_total(self) -> int: ...
    @property
    def comm_calls(self) -> Dict[str, Dict[str, int]]: ...
    @property
    def comm_bytes(self) -> Dict[str, Dict[str, int]]: ...

class PhaseProgress:
    name: str
    step: int
    total_steps: int
    seconds: float
    @property
    def steps_per_second(self) -> float: ...

class DeviceReport:
    device: int
    name: str
    capacity: int
    @property
    def memory_current(self) -> Dict[str, int]: ...
    @property
    def memory_peak(self) -> Dict[str, int]: ...
    @property
    def comm_calls(self) -> Dict[str, Dict[str, int]]: ...

class Report:
    phase: str
    step: int
    total_steps: int
    elapsed_seconds: float
    steps_per_second: float
    cell_updates_per_second: float
    remaining_seconds: float
    phases: List[PhaseProgress]
    devices: List[DeviceReport]

class RunResult:
    completed: bool
    status: str
    interrupted: bool
    failed_outputs: List[str]
    steps: int
    total_steps: int
    dt_fs: float
    seconds: float
    forward_seconds: float
    backward_seconds: float
    cell_updates: int
    grid_cells: List[int]
    objective: Optional[float]
    objective_terms: npt.NDArray[np.float64]
    detectors: Dict[str, DetectorResult]
    gradients: Dict[str, npt.NDArray[np.float64]]
    devices: List[DeviceSummary]
    phases: List[PhaseProgress]
    timeline: List[Report]
    def write(self, path: str, scene: Scene, snapshots_dir: str = "") -> None: ...

class ResultsFile:
    version: int
    yee_version: str
    scene_hash: str
    scene_name: str
    scene_json: str
    status: str
    complete: bool
    failed_outputs: List[str]
    steps: int
    total_steps: int
    dt_fs: float
    grid_cells: List[int]
    objective: Optional[float]
    wall_seconds: float
    cell_updates: int
    phases: List[PhaseProgress]
    detectors: Dict[str, DetectorResult]
    gradients: Dict[str, npt.NDArray[np.float64]]
    devices: List[DeviceSummary]

class Estimate:
    grid_cells: List[int]
    steps: int
    devices: List[DeviceSummary]
    capacity_note: str
    recompute_steps: int
    max_device_peak: int
    total_peak: int
    fits: bool
    def check(self) -> None: ...

class Session:
    def __init__(self, scene: Scene, *, tiles: Optional[Tiles] = None, devices: Optional[str] = None,
                 precision: Optional[str] = None, overlap: Optional[bool] = None, max_steps: Optional[int] = None,
                 capacity: Optional[str] = None, guard_interval: Optional[int] = None,
                 threads_per_device: Optional[int] = None, telemetry_interval: Optional[float] = None,
                 progress: Optional[Progress] = None, gradient: bool = True) -> None: ...
    def evaluate(self, latent: Union[Latent, npt.ArrayLike, None] = None, beta: Optional[Sequence[float]] = None,
                 weights: Optional[Sequence[float]] = None) -> RunResult: ...
    def serve(self) -> None: ...
    def close(self) -> None: ...
    def latent(self) -> Dict[str, npt.NDArray[np.float64]]: ...
    evaluations: int
    design_sizes: List[int]
    design_names: List[str]
    gradient: bool
    def __enter__(self) -> Session: ...
    def __exit__(self, *args: Any) -> None: ...

class Evaluation:
    stage: int
    beta: List[float]
    merit: float
    objective: float
    terms: List[float]
    constraints: List[float]
    grad_norm: float
    binarisation: float
    seconds: float
    peak_bytes: List[int]
    latent: List[npt.NDArray[np.float64]]
    density: List[npt.NDArray[np.float64]]

class OptResult:
    completed: bool
    status: str
    interrupted: bool
    history: List[Evaluation]
    replayed: int
    best: int
    latent: Dict[str, npt.NDArray[np.float64]]

def run(scene: Scene, *, tiles: Optional[Tiles] = None, devices: Optional[str] = None,
        precision: Optional[str] = None, overlap: Optional[bool] = None, max_steps: Optional[int] = None,
        capacity: Optional[str] = None, guard_interval: Optional[int] = None,
        threads_per_device: Optional[int] = None, telemetry_interval: Optional[float] = None,
        progress: Optional[Progress] = None, gradient: bool = False, latent: Optional[Latent] = None) -> RunResult: ...
def value_and_grad(scene: Scene, latent: Optional[Latent] = None, **options: Any
                   ) -> Tuple[Optional[float], Dict[str, npt.NDArray[np.float64]], RunResult]: ...
def estimate_memory(scene: Scene, *, tiles: Optional[Tiles] = None, devices: Optional[str] = None,
                    precision: Optional[str] = None, max_steps: Optional[int] = None,
                    capacity: Optional[str] = None, gradient: bool = False) -> Estimate: ...
def optimize(scene: Scene, *, iterations: Optional[int] = None, history: str = "", resume: str = "",
             max_evaluations: Optional[int] = None,
             on_evaluation: Optional[Callable[[int, Evaluation], None]] = None, tiles: Optional[Tiles] = None,
             devices: Optional[str] = None, precision: Optional[str] = None,
             progress: Optional[Progress] = None) -> OptResult: ...
def read_results(path: str) -> ResultsFile: ...
def gpu_count() -> int: ...
def mpi_rank() -> int: ...
def mpi_size() -> int: ...
